import type { ReplaySpeed } from "../../store/replay/replaySpeed.js";
import { fitPanes } from "../../ui/model/paneLimit.js";
import { err, fail } from "../output.js";
import { readRecording, replayTimeOf } from "../replayInput.js";
import { requireTerminal } from "./ui.js";

export interface ReplayOptions {
  speed?: ReplaySpeed;
  at?: string;
  paused?: boolean;
  session?: string;
}

/**
 * `agent-sessions replay FILE…`: the terminal UI fed from recorded NDJSON instead of the
 * network. No key and no request: every pane feature works on the recording.
 */
export async function runReplay(files: string[], opts: ReplayOptions): Promise<void> {
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
      initialSessions: fitPanes(recording.sessions).open,
      notify: { bell: false, osc: false, oscKind: "9", tmux: false },
      now: handle.replay.now,
      cleanup: () => handle.dispose(),
    });
  } catch (e) {
    fail(e);
  }
}
