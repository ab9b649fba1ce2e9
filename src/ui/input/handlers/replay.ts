import { parseReplayTime, REPLAY_TIME_HELP } from "../../../store/replay/replayTime.js";
import { sanitize } from "../../../text/sanitize.js";
import type { UiDeps } from "../../model/deps.js";
import { message, patch } from "../actions.js";
import type { ModeHandlers } from "./types.js";

/**
 * A recording's controls (`agent-sessions replay`), on the list and in a pane: play and pause,
 * speed, steps, and the "jump to" field. Outside a replay their keys do nothing.
 */

/** How far ← and → move. */
export const REPLAY_STEP_MS = 10_000;

/** Jump to the moment the user wrote; a time that reads as none says how to write one. */
function jumpTo(deps: UiDeps, text: string): void {
  const replay = deps.services.replay;
  if (!replay || text.trim() === "") return;
  const { start, end } = replay.getState();
  const at = parseReplayTime(text, start, end);
  if (at === null) {
    message(deps, `Not a time: "${sanitize(text.trim())}". Give ${REPLAY_TIME_HELP}`, "warn");
    return;
  }
  replay.seek(at);
}

export const REPLAY: ModeHandlers<"list" | "pane"> = {
  replayToggle: (deps) => deps.services.replay?.toggle(),
  replayFaster: (deps) => deps.services.replay?.faster(),
  replaySlower: (deps) => deps.services.replay?.slower(),
  replayBack: (deps) => deps.services.replay?.step(-REPLAY_STEP_MS),
  replayForward: (deps) => deps.services.replay?.step(REPLAY_STEP_MS),
  replayJump: (deps) => {
    if (deps.services.replay) patch(deps, { editing: { kind: "jump", draft: "" } });
  },
};

/** Typing the time to jump to: Enter jumps, Esc drops it. */
export const JUMP: ModeHandlers<"jump"> = {
  cancel: (deps) => patch(deps, { editing: null }),
  submit: (deps, { editing: e }) => {
    patch(deps, { editing: null });
    jumpTo(deps, e.draft);
  },
};
