import { type Approval, approvalGate } from "../../../protocol/approvals.js";
import { promptProblem } from "../../../protocol/prompt.js";
import { actOf } from "../../../store/act/actStore.js";
import { hasRead, pendingOf as pendingIn } from "../../../store/approvals/approvalsBook.js";
import type { UiDeps } from "../../model/deps.js";
import { isGitPending, openForm, runGitAction } from "../../model/gitActions.js";
import { commandById, keyOf } from "../../model/keymap.js";
import type { PendingAction, PromptEditing } from "../../model/uiStore.js";
import { message, patch, sessionRecord } from "../actions.js";
import { runDestroy } from "./destroy.js";
import { keepQueued, sendNow, sendOrQueue } from "./followUps.js";
import { explainGitFailure } from "./gitReach.js";
import { askBulk, runBulk } from "./marks.js";
import { startReviewPending } from "./review.js";
import { focusPane, target } from "./sessionTarget.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/**
 * Acting on the focused session: reply (the prompt box), cancel, approve or reject its
 * pending approval, pause/resume/start; and running what a confirmation stands for. The
 * store (src/store/act) does the calls; these only decide what to offer and ask.
 */

const reply: Handler = (deps) => {
  const sessionId = target(deps, commandById("reply"));
  if (!sessionId || !focusPane(deps, sessionId)) return;
  const cur = deps.ui.getState().editing;
  const draft = cur?.kind === "prompt" && cur.sessionId === sessionId ? cur.draft : "";
  patch(deps, {
    editing: { kind: "prompt", sessionId, draft, recall: null, saved: draft },
    message: null,
  });
};

const cancelPrompt: Handler = (deps) => {
  const sessionId = target(deps, commandById("cancelPrompt"));
  if (!sessionId) return;
  const act = deps.services.act;
  if (!act) return;
  void act.cancelPrompt(sessionId).then(() => {
    const n = actOf(act.getState(), sessionId).notice;
    if (n) message(deps, `${sessionId}: ${n.text}`, n.ok ? "ok" : "warn");
  });
};

/** The session's pending approvals as the approvals book holds them, oldest first. */
function pendingOf(deps: UiDeps, sessionId: string): readonly Approval[] {
  const book = deps.services.approvals;
  return book ? pendingIn(book.getState(), sessionId) : [];
}

/** Why the key's role cannot decide this approval (known before asking), or null. */
export function roleRefusal(deps: UiDeps, a: Approval): string | null {
  const info = deps.services.identity.getState().keyInfo;
  if (!info) return null;
  return approvalGate(a, info.role);
}

/**
 * Y / X: the form for the session's pending approvals, the first the role may decide picked;
 * with several, ↑/↓ in the form picks another. A session the book has not read (its record
 * does not say it waits, or the service sends no agent_status) is read now, as the user asks.
 */
function decide(action: "approve" | "reject"): Handler {
  return (deps) => {
    const cmd = commandById(action);
    const sessionId = target(deps, cmd);
    if (!sessionId) return;
    const book = deps.services.approvals;
    const pending = pendingOf(deps, sessionId);
    if (pending.length === 0) {
      const known = book ? hasRead(book.getState(), sessionId) : false;
      message(
        deps,
        known || !book
          ? `${sessionId} has no pending approval`
          : `Reading the approvals of ${sessionId}…`,
      );
      if (!known && book) {
        void book.read(sessionId).then((e) => {
          message(
            deps,
            e.pending.length > 0
              ? `${sessionId} has ${e.pending.length === 1 ? "a pending approval" : `${e.pending.length} pending approvals`}: press ${keyOf(action)} again`
              : `${sessionId} has no pending approval`,
          );
        });
      }
      return;
    }
    const pick = pending.findIndex((a) => roleRefusal(deps, a) === null);
    if (pick < 0) {
      const refused = roleRefusal(deps, pending[0] as Approval);
      message(
        deps,
        `${cmd.label} is disabled: ${pending.length === 1 ? "this approval" : "every pending approval"} ${refused}`,
        "error",
      );
      return;
    }
    patch(deps, {
      dialog: openForm(action, sessionId, { approvals: pending, pick }),
      message: null,
    });
  };
}

function lifecycle(action: "pause" | "resume" | "start"): Handler {
  return (deps) => {
    if (action !== "start" && askBulk(deps, action)) return;
    const sessionId = target(deps, commandById(action));
    if (!sessionId) return;
    patch(deps, {
      dialog: { kind: "confirm", sessionId, action: { kind: action } },
      message: null,
    });
  };
}

export const ACT_SCREEN: ModeHandlers<"list" | "pane" | "fleet"> = {
  reply,
  cancelPrompt,
  approve: decide("approve"),
  reject: decide("reject"),
  pause: lifecycle("pause"),
  resume: lifecycle("resume"),
  start: lifecycle("start"),
};

/** Runs what a confirmation stands for. A git action on a paused session resumes it first. */
export function startPending(deps: UiDeps, sessionId: string, action: PendingAction): void {
  if (action.kind === "takeHome" || action.kind === "rewind" || action.kind === "resumeFirst") {
    startReviewPending(deps, sessionId, action);
    return;
  }
  patch(deps, { dialog: null, message: null });
  const act = deps.services.act;
  const paused = sessionRecord(deps, sessionId)?.state === "paused";
  const resumeFirst = async (): Promise<boolean> => {
    if (!act) return true;
    const ok = await act.lifecycle(sessionId, "resume");
    if (ok) void deps.services.sessions.getState().refreshSession(sessionId);
    else {
      const n = actOf(act.getState(), sessionId).notice;
      message(deps, `${sessionId}: ${n?.text ?? "resume failed"}`, "error");
    }
    return ok;
  };
  if (isGitPending(action)) {
    void (async () => {
      if (paused && !(await resumeFirst())) return;
      const { busy, outcome } = await runGitAction(deps.services, sessionId, action);
      if (busy) message(deps, busy, "warn");
      await explainGitFailure(deps, sessionId, action, outcome);
    })();
    return;
  }
  if (action.kind === "destroy") {
    runDestroy(deps, [sessionId]);
    return;
  }
  if (action.kind === "bulk") {
    runBulk(deps, action.action, action.sessionIds);
    return;
  }
  if (!act) return;
  switch (action.kind) {
    case "launch":
    case "rename":
      // Run from their forms (runFormAction): never a confirmation of their own.
      return;
    case "sendNow":
      sendNow(deps, sessionId, action.prompt, action.queued);
      return;
    case "promptPaused":
      void (async () => {
        if (await resumeFirst()) sendOrQueue(deps, sessionId, action.prompt);
      })();
      return;
    case "approve":
    case "reject":
      void act.decide(sessionId, action.approval, action.kind, action.note).then(() => {
        const n = actOf(act.getState(), sessionId).notice;
        if (n) message(deps, n.text, n.ok ? "ok" : "error");
      });
      return;
    case "pause":
    case "resume":
    case "start":
      void act.lifecycle(sessionId, action.kind).then((ok) => {
        const n = actOf(act.getState(), sessionId).notice;
        if (n) message(deps, `${sessionId}: ${n.text}`, ok ? "ok" : "error");
        void deps.services.sessions.getState().refreshSession(sessionId);
      });
      return;
  }
}

type PromptMode = ModeOf<"prompt">;

function setDraft(deps: UiDeps, e: PromptEditing, p: Partial<PromptEditing>): void {
  patch(deps, { editing: { ...e, ...p } });
}

function recall(step: -1 | 1): Handler<PromptMode> {
  return (deps, { editing: e }) => {
    const sent = deps.services.act ? actOf(deps.services.act.getState(), e.sessionId).sent : [];
    if (sent.length === 0) {
      message(deps, "No earlier prompt of this session to recall");
      return;
    }
    const cur = e.recall ?? sent.length;
    const next = Math.max(0, Math.min(sent.length, cur + step));
    if (next === sent.length) setDraft(deps, e, { draft: e.saved, recall: null });
    else
      setDraft(deps, e, {
        draft: sent[next] ?? "",
        recall: next,
        saved: e.recall === null ? e.draft : e.saved,
      });
  };
}

/** E in a pane: the answer's tool items whole, or folded to one line each. */
export const toggleTools: Handler<ModeOf<"pane">> = (deps, { sessionId }) => {
  const act = deps.services.act;
  if (!act) return;
  const open = act.toggleTools(sessionId);
  message(deps, open ? "Tool use and results shown whole" : "Tool use and results folded");
};

export const PROMPT: ModeHandlers<"prompt"> = {
  cancel: (deps) => {
    // The draft is kept for the next R on this session.
    const e = deps.ui.getState().editing;
    patch(deps, { editing: null });
    if (e?.kind === "prompt" && e.draft.trim() !== "") {
      message(deps, `Prompt not sent; ${keyOf("reply")} brings the draft back`);
    }
  },
  promptNewline: (deps, { editing: e }) => setDraft(deps, e, { draft: `${e.draft}\n` }),
  promptRecallPrev: recall(-1),
  promptRecallNext: recall(1),
  promptEditor: (deps, { editing: e }) => {
    if (!deps.editText) {
      message(deps, "Editing in $VISUAL/$EDITOR is not available here", "warn");
      return;
    }
    const r = deps.editText(e.draft);
    if ("error" in r) message(deps, r.error, "warn");
    else setDraft(deps, e, { draft: r.text, recall: null });
  },
  promptSend: (deps, { editing: e }) => {
    const bad = promptProblem(e.draft);
    if (bad !== null) {
      message(deps, `Not sent: ${bad}`, "warn");
      return;
    }
    if (e.queued !== undefined) {
      keepQueued(deps, { ...e, queued: e.queued });
      return;
    }
    const prompt = e.draft;
    patch(deps, { editing: null });
    if (sessionRecord(deps, e.sessionId)?.state === "paused") {
      patch(deps, {
        dialog: {
          kind: "confirm",
          sessionId: e.sessionId,
          action: { kind: "promptPaused", prompt },
        },
      });
      return;
    }
    sendOrQueue(deps, e.sessionId, prompt);
  },
};
