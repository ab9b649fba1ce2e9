import { chmod, writeFile } from "node:fs/promises";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { FaultSettings, ReferenceServer, ServerOptions } from "../../server/index.js";

interface ServeFlags {
  host: string;
  port: number;
  heartbeatMs: number;
  paceMs: number;
  sessions: number;
  seed?: number;
  rateLimit: number;
  rateWindowMs: number;
  rateBurst?: number;
  historyLimit: number;
  history: number;
  dataDir?: string;
  keysFile?: string;
  log?: boolean;
  dropAfter?: number;
  stall?: boolean;
  failStatus?: number;
  failCount?: number;
  failRetryAfter?: string;
  malformedEvery?: number;
  oversizedEvery?: number;
  oversizedBytes?: number;
  escapes?: boolean;
  lineEnding?: FaultSettings["lineEnding"];
  comments?: boolean;
  retryMs?: number;
  eventIds?: boolean;
  ignoreLastEventId?: boolean;
}

/** Where serve writes, and what ends it; tests inject these instead of real signals. */
export interface ServeIo {
  out: (text: string) => void;
  err: (line: string) => void;
  /** Resolves when the service should stop; default: the first SIGINT or SIGTERM. */
  until?: () => Promise<void>;
}

function intArg(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected an integer >= ${min}`);
    }
    return n;
  };
}

function portArg(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n > 65_535) {
    throw new InvalidArgumentError("expected a port number from 0 to 65535 (0 picks a free one)");
  }
  return n;
}

function countArg(value: string): number {
  if (/^(inf|infinity)$/i.test(value)) return Number.POSITIVE_INFINITY;
  return intArg(0)(value);
}

function statusArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 200 || n > 599) {
    throw new InvalidArgumentError("expected an HTTP status code (e.g. 500, 502, 503, 429)");
  }
  return n;
}

/** The ServerOptions a set of serve flags stands for. */
export function serveOptions(flags: ServeFlags): ServerOptions {
  const faults: Partial<FaultSettings> = {};
  if (flags.dropAfter !== undefined) faults.dropAfter = flags.dropAfter;
  if (flags.stall) faults.stall = true;
  if (flags.failStatus !== undefined) {
    faults.failStatus = flags.failStatus;
    // A failure flag without a count means "until restarted".
    faults.failCount = flags.failCount ?? Number.POSITIVE_INFINITY;
  }
  if (flags.failRetryAfter !== undefined) faults.failRetryAfter = flags.failRetryAfter;
  if (flags.malformedEvery !== undefined) faults.malformedEvery = flags.malformedEvery;
  if (flags.oversizedEvery !== undefined) faults.oversizedEvery = flags.oversizedEvery;
  if (flags.oversizedBytes !== undefined) faults.oversizedBytes = flags.oversizedBytes;
  if (flags.escapes) faults.escapes = true;
  if (flags.lineEnding !== undefined) faults.lineEnding = flags.lineEnding;
  if (flags.comments) faults.comments = true;
  if (flags.retryMs !== undefined) faults.retryMs = flags.retryMs;
  // commander turns --no-event-ids into eventIds: false.
  if (flags.eventIds === false) faults.noEventIds = true;
  if (flags.ignoreLastEventId) faults.ignoreLastEventId = true;
  return {
    host: flags.host,
    port: flags.port,
    heartbeatMs: flags.heartbeatMs,
    paceMs: flags.paceMs,
    sessionCount: flags.sessions,
    seed: flags.seed,
    rateLimit:
      flags.rateLimit === 0
        ? false
        : {
            limit: flags.rateLimit,
            windowMs: flags.rateWindowMs,
            ...(flags.rateBurst !== undefined ? { burst: flags.rateBurst } : {}),
          },
    historyLimit: flags.historyLimit,
    historyOnOpen: flags.history,
    dataDir: flags.dataDir,
    faults,
  };
}

async function writeKeysFile(path: string, server: ReferenceServer): Promise<void> {
  const body = server.keys.map((k) => ({
    name: k.name,
    key: k.key,
    role: k.role,
    demonstrates: k.demonstrates,
  }));
  await writeFile(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  // mode only applies when the file is created; an existing file may have been readable.
  await chmod(path, 0o600);
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

const defaultIo: ServeIo = {
  out: (text) => process.stdout.write(text),
  err: (line) => process.stderr.write(`${line}\n`),
};

export async function runServe(flags: ServeFlags, io: ServeIo = defaultIo): Promise<void> {
  const options = serveOptions(flags);
  if (flags.log) options.log = (line) => io.err(line);
  const stop = (io.until ?? untilSignal)();
  let server: ReferenceServer;
  try {
    // Loaded only when serving, so other commands start without the service's code.
    const { startServer } = await import("../../server/index.js");
    server = await startServer(options);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      throw new Error(
        `port ${flags.port} is already in use on ${flags.host}; choose another with --port (0 picks a free one)`,
      );
    }
    if (code === "EACCES") {
      throw new Error(
        `not allowed to listen on port ${flags.port} (ports below 1024 need privileges); choose another with --port (0 picks a free one)`,
      );
    }
    if (code === "EADDRNOTAVAIL") {
      throw new Error(
        `cannot listen on ${flags.host}: no such local address; try --host 127.0.0.1`,
      );
    }
    throw e;
  }
  try {
    if (flags.keysFile) await writeKeysFile(flags.keysFile, server);
    const { exposureWarning, formatBanner } = await import("../../server/index.js");
    io.out(formatBanner(server));
    const exposed = exposureWarning(server);
    if (exposed) io.err(`warning: ${exposed}`);
    if (flags.keysFile) io.err(`serve: demo keys written to ${flags.keysFile}`);
    await stop;
    io.err("serve: stopping");
  } finally {
    await server.close();
  }
}

export function registerServeCommand(program: Command, io?: ServeIo): void {
  program
    .command("serve")
    .description(
      "run the loopback reference service (demo keys, simulated sessions, real git, fault injection)",
    )
    .option(
      "--host <host>",
      "address to listen on (anything but loopback exposes the demo keys' access)",
      "127.0.0.1",
    )
    .option("--port <n>", "port (0 picks a free one)", portArg, 0)
    .option("--heartbeat-ms <ms>", "interval between heartbeat events", intArg(1), 15_000)
    .option(
      "--pace-ms <ms>",
      "mean ms between simulated events per session (0: off)",
      intArg(0),
      800,
    )
    .option("--sessions <n>", "number of simulated sessions", intArg(0), 6)
    .option("--seed <n>", "make keys, ids and simulated content reproducible", intArg(0))
    .option("--rate-limit <n>", "requests per window per key (0: no limit)", intArg(0), 600)
    .option("--rate-window-ms <ms>", "sliding window length", intArg(1), 60_000)
    .option(
      "--rate-burst <n>",
      "also at most N requests at once, refilled at the rate limit (the real service: 20)",
      intArg(1),
    )
    .option(
      "--history-limit <n>",
      "events kept per session for Last-Event-ID replay",
      intArg(1),
      10_000,
    )
    .option(
      "--history <n>",
      "recent events sent to a new subscriber before live ones (0: none)",
      intArg(0),
      200,
    )
    .option("--data-dir <path>", "keep repositories and workspaces here (default: a temp dir)")
    .option("--keys-file <path>", "also write the demo keys as JSON to this file (mode 0600)")
    .option("--log", "log each request to stderr (never the key)")
    .option("--drop-after <n>", "fault: end each stream after N events", intArg(1))
    .option("--stall", "fault: streams send headers, then nothing")
    .option("--fail-status <status>", "fault: answer every request with this status", statusArg)
    .option("--fail-count <n>", "fault: ... for this many requests (default: inf)", countArg)
    .option("--fail-retry-after <value>", "fault: Retry-After value sent with 429/503")
    .option("--malformed-every <n>", "fault: every Nth simulated event has invalid JSON", intArg(1))
    .option("--oversized-every <n>", "fault: every Nth simulated event is oversized", intArg(1))
    .option("--oversized-bytes <n>", "fault: size of an oversized event (default 2 MiB)", intArg(1))
    .option("--escapes", "fault: process output carries ANSI/OSC/C1 escape sequences")
    .addOption(
      new Option("--line-ending <ending>", "fault: SSE line terminator").choices([
        "lf",
        "crlf",
        "cr",
      ]),
    )
    .option("--comments", "fault: interleave SSE comment lines")
    .option("--retry-ms <ms>", "fault: send `retry: N` at stream start", intArg(0))
    .option("--no-event-ids", "fault: streams carry no id: lines (as the real service documents)")
    .option(
      "--ignore-last-event-id",
      "fault: every stream replays all kept events, whatever Last-Event-ID says",
    )
    .action(async (flags: ServeFlags) => {
      await runServe(flags, io);
    });
}
