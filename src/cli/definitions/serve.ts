import { type Command, InvalidArgumentError, Option } from "commander";
import type { ServeFlags, ServeIo } from "../commands/serve.js";
import { clockOption, intArg } from "./argParsers.js";

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
    .addOption(clockOption())
    .option("--rate-limit <n>", "requests per window per key (0: no limit)", intArg(0), 600)
    .option("--rate-window-ms <ms>", "sliding window length", intArg(1), 60_000)
    .option(
      "--rate-burst <n>",
      "also at most N requests at once, refilled at the rate limit (the real service: 20)",
      intArg(1),
    )
    .option(
      "--history-limit <n>",
      "events kept per session for Last-Event-ID replay and GET …/history",
      intArg(1),
      10_000,
    )
    .option(
      "--history <n>",
      "recent events a new subscriber is sent before live ones (the real service: none)",
      intArg(0),
      0,
    )
    .addOption(
      new Option(
        "--mount <mount>",
        "where session routes live: interface (/api/sessions) or cloud (/api/cloud/sessions only, /api/sessions answering 401 like the real service's dashboard)",
      )
        .choices(["interface", "cloud"])
        .default("interface"),
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
      const { runServe } = await import("../commands/serve.js");
      await runServe(flags, io);
    });
}
