import type { Command } from "commander";
import type { ReplaySpeed } from "../../store/history/replayEngine.js";
import { err, fail } from "../output.js";
import { readRecording, replayTimeOf, speedArg } from "../replayInput.js";
import { requireTerminal } from "./ui.js";

interface ReplayOptions {
  speed?: ReplaySpeed;
  at?: string;
  paused?: boolean;
  session?: string;
}

/**
 * `agent-sessions replay FILE…`: the terminal UI fed from recorded NDJSON instead of the
 * network. No key and no request: every pane feature works on the recording.
 */
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
      try {
        // The files first: a bad one is said before anything else.
        const recording = await readRecording(files, opts.session);
        const at = opts.at !== undefined ? replayTimeOf(opts.at, recording) : undefined;
        for (const w of recording.warnings) err(`warning: ${w}`);
        if (!requireTerminal()) return;
        const [{ buildReplayServices }, { runTui }] = await Promise.all([
          import("../tui/buildReplayServices.js"),
          import("../tui/runTui.js"),
        ]);
        const handle = buildReplayServices(recording, {
          ...(opts.speed !== undefined ? { speed: opts.speed } : {}),
          ...(at !== undefined ? { at } : {}),
          playing: !opts.paused,
        });
        process.exitCode = await runTui({
          profile: "replay",
          baseUrl: files.join(" "),
          services: handle.services,
          initialSessions: recording.sessions.slice(0, 6),
          notify: { bell: false, osc: false, oscKind: "9", tmux: false },
          now: handle.replay.now,
          cleanup: () => handle.dispose(),
        });
      } catch (e) {
        fail(e);
      }
    });
}
