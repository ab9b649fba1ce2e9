import { chmod, writeFile } from "node:fs/promises";
import type { FaultSettings, ReferenceServer, ServerOptions } from "../../server/index.js";

export interface ServeFlags {
  host: string;
  port: number;
  heartbeatMs: number;
  paceMs: number;
  sessions: number;
  seed?: number;
  /** "manual": the simulator stands still until POST /_clock/advance (tests). */
  clock?: "system" | "manual";
  rateLimit: number;
  rateWindowMs: number;
  rateBurst?: number;
  historyLimit: number;
  history: number;
  dataDir?: string;
  /** Where session routes live (default interface). */
  mount?: "interface" | "cloud";
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
    ...(flags.clock !== undefined ? { clock: flags.clock } : {}),
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
    ...(flags.mount !== undefined ? { mount: flags.mount } : {}),
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
    server = await startServer({ demoApprovals: true, ...options });
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
