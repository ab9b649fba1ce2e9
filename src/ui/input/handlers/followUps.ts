import { promptProblem } from "../../../protocol/prompt.js";
import { lastPrompt } from "../../../protocol/sessionRecord.js";
import type { UiDeps } from "../../model/deps.js";
import { commandById, keyOf } from "../../model/keymap.js";
import type { PromptEditing } from "../../model/uiStore.js";
import { message, patch, sessionRecord } from "../actions.js";
import { movementKeys, type Step } from "./movement.js";
import { focusPane, target } from "./sessionTarget.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/**
 * The follow-up queue from the keyboard (store/act/followUps.ts does the sending): the
 * prompt box's Enter queues a reply while a prompt runs, Ctrl-S sends one now (cancelling
 * the running one, after asking), Q lists the session's queue, where a reply is edited in the
 * prompt box or dropped.
 */

function queueOf(deps: UiDeps, sessionId: string): readonly string[] {
  return deps.services.followUps?.getState().queues.get(sessionId) ?? [];
}

/** The prompt box's send: sent now, or queued behind the running prompt (said). */
export function sendOrQueue(deps: UiDeps, sessionId: string, prompt: string): void {
  const follow = deps.services.followUps;
  if (!follow) return;
  void follow.submit(sessionId, prompt).then((r) => {
    if (r === "queued") {
      const n = queueOf(deps, sessionId).length;
      message(
        deps,
        `${sessionId}: a prompt is running; yours is queued (${n} waiting, ${keyOf("followUpQueue")} shows them) and goes when it completes`,
      );
    } else if (r === "full") {
      message(deps, `${sessionId}: the follow-up queue is full; yours was not queued`, "warn");
    }
  });
}

/** Whether a prompt runs in the session: one sent from here, or as its record says. */
function promptRuns(deps: UiDeps, sessionId: string): boolean {
  if (deps.services.followUps?.running(sessionId)) return true;
  const r = sessionRecord(deps, sessionId);
  return r !== undefined && lastPrompt(r)?.status === "running";
}

/** Ctrl-S in the prompt box: sent at once; while a prompt runs, after asking to cancel it. */
const promptSendNow: Handler<ModeOf<"prompt">> = (deps, { editing: e }) => {
  const bad = promptProblem(e.draft);
  if (bad !== null) {
    message(deps, `Not sent: ${bad}`, "warn");
    return;
  }
  if (!deps.services.followUps) return;
  patch(deps, { editing: null });
  const queued = e.queued ?? null;
  if (promptRuns(deps, e.sessionId)) {
    patch(deps, {
      dialog: {
        kind: "confirm",
        sessionId: e.sessionId,
        action: { kind: "sendNow", prompt: e.draft, queued },
      },
    });
  } else sendNow(deps, e.sessionId, e.draft, queued);
};

/** Sends now (cancelling what runs); a queued reply sent now leaves the queue. */
export function sendNow(
  deps: UiDeps,
  sessionId: string,
  prompt: string,
  queued: number | null,
): void {
  const follow = deps.services.followUps;
  if (!follow) return;
  if (queued !== null) follow.drop(sessionId, queued);
  void follow.sendNow(sessionId, prompt);
}

/** "Send now" declined: the prompt box comes back with the reply, nothing sent or dropped. */
export function sendNowDeclined(
  deps: UiDeps,
  sessionId: string,
  prompt: string,
  queued: number | null,
): void {
  patch(deps, {
    editing: {
      kind: "prompt",
      sessionId,
      draft: prompt,
      recall: null,
      saved: prompt,
      ...(queued !== null ? { queued } : {}),
    },
  });
  message(deps, "Send now cancelled: nothing was cancelled or sent");
}

/** Enter on a queued reply being edited: it stays queued, changed. */
export function keepQueued(deps: UiDeps, e: PromptEditing & { queued: number }): void {
  deps.services.followUps?.edit(e.sessionId, e.queued, e.draft);
  patch(deps, { editing: null });
  message(deps, `Queued reply ${e.queued + 1} changed`, "ok");
}

const open: Handler = (deps) => {
  const sessionId = target(deps, commandById("followUpQueue"));
  if (!sessionId) return;
  if (queueOf(deps, sessionId).length === 0) {
    message(
      deps,
      `${sessionId} has no queued reply (a reply given while a prompt runs waits there)`,
    );
    return;
  }
  patch(deps, { overlay: { kind: "followUps", sessionId, cursor: 0 }, message: null });
};

export const FOLLOW_UPS_SCREEN: ModeHandlers<"list" | "pane" | "fleet"> = { followUpQueue: open };

type QueueMode = ModeOf<"followUps">;

/** A page of the queue for PgUp/PgDn. */
const QUEUE_PAGE = 10;

function select(step: Step): Handler<QueueMode> {
  return (deps, { overlay: o }) => {
    const n = queueOf(deps, o.sessionId).length;
    const cursor = Math.max(0, Math.min(n - 1, step(o.cursor, QUEUE_PAGE)));
    patch(deps, { overlay: { ...o, cursor } });
  };
}

const close: Handler = (deps) => patch(deps, { overlay: null });

export const FOLLOW_UPS: ModeHandlers<"followUps"> = {
  ...movementKeys(select),
  followUpEdit: (deps, { overlay: o }) => {
    const text = queueOf(deps, o.sessionId)[o.cursor];
    if (text === undefined || !focusPane(deps, o.sessionId)) return;
    patch(deps, {
      overlay: null,
      editing: {
        kind: "prompt",
        sessionId: o.sessionId,
        draft: text,
        recall: null,
        saved: text,
        queued: o.cursor,
      },
    });
  },
  followUpDrop: (deps, { overlay: o }) => {
    deps.services.followUps?.drop(o.sessionId, o.cursor);
    const left = queueOf(deps, o.sessionId).length;
    message(deps, `Dropped queued reply ${o.cursor + 1}; ${left} left`);
    patch(deps, {
      overlay: left === 0 ? null : { ...o, cursor: Math.min(o.cursor, left - 1) },
    });
  },
  followUpQueue: close,
  quit: close,
  cancel: close,
};

export const PROMPT_FOLLOW_UPS: ModeHandlers<"prompt"> = { promptSendNow };
