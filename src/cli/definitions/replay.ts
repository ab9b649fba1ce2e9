import { type Command, InvalidArgumentError } from "commander";
import { REPLAY_SPEEDS, type ReplaySpeed } from "../../store/replay/replaySpeed.js";
import type { ReplayOptions } from "../commands/replay.js";

function speedArg(value: string): ReplaySpeed {
  const v = value.trim().replace(/^[x×]/i, "").toLowerCase();
  const speed = v === "max" ? "max" : Number(v);
  if (!REPLAY_SPEEDS.includes(speed as ReplaySpeed)) {
    throw new InvalidArgumentError("expected 1, 10, 100 or max");
  }
  return speed as ReplaySpeed;
}

export function registerReplayCommand(program: Command): void {
  program
    .command("replay")
    .description(
      "open the terminal UI on recorded events (watch --json output, a pane's e export, journal files): no network, no key",
    )
    .argument(
      "<file...>",
      "NDJSON files to play (events of several sessions are interleaved by time)",
    )
    .option("--speed <speed>", "1, 10, 100 or max", speedArg, 1 as ReplaySpeed)
    .option("--at <time>", "start at this moment (10:12:30, +5m, -30s, 50%, start, end)")
    .option("--paused", "start paused")
    .option("--session <session_id>", "the session of lines that do not name theirs")
    .action(async (files: string[], opts: ReplayOptions) => {
      const { runReplay } = await import("../commands/replay.js");
      await runReplay(files, opts);
    });
}
