import { createStore, type StoreApi } from "zustand/vanilla";
import type { PromptOutcome } from "../../client/apiClient.js";
import type { Approval, ResolveAction } from "../../protocol/approvals.js";
import type { LifecycleAction, LifecycleAnswer, PromptItem } from "../../protocol/prompt.js";
import { lifecyclePast } from "../../protocol/prompt.js";
import type { ApiKeyInfo } from "../../protocol/resources.js";
import { cutText, sanitize, sanitizeLine } from "../../text/sanitize.js";
import type { ApprovalsBook } from "../approvals/approvalsBook.js";
import { type ErrorInfo, toErrorInfo } from "../errorInfo.js";
import { type DecisionOutcome, decideApproval, describeDecision } from "./approvalDecision.js";
import { promptEndIsCancel, toolDetail, toolLine } from "./promptView.js";

/**
 * Acting on sessions from the UI: the prompts sent and their answers as they stream, cancel,
 * decisions on approvals (taken on, and written back to, the approvals book, which holds the
 * approvals themselves), pause/resume/start. Plain modules push here; panes only select.
 * Every string from a server is sanitized once, where it enters.
 */

/** What the UI calls (ApiClient satisfies it). */
export interface ActApi {
  sendPrompt(
    id: string,
    prompt: string,
    opts: { onItem: (item: PromptItem) => void; signal?: AbortSignal },
  ): Promise<PromptOutcome>;
  cancelPrompt(id: string, signal?: AbortSignal): Promise<{ cancelled: boolean }>;
  resolveApproval(
    id: string,
    approvalId: string,
    action: ResolveAction,
    note?: string,
    signal?: AbortSignal,
  ): Promise<Approval>;
  lifecycle(id: string, action: LifecycleAction, signal?: AbortSignal): Promise<LifecycleAnswer>;
  /** Read after a refused decision, to say which thing refused (approvalDecision.ts). */
  getSession(id: string, signal?: AbortSignal): Promise<unknown>;
  verify(signal?: AbortSignal): Promise<ApiKeyInfo>;
}

/** One line of an answer as the pane shows it. */
export interface AnswerLine {
  kind: "text" | "tool" | "end" | "error";
  text: string;
  /** A tool item's whole content (sanitized, at most TOOL_DETAIL_CHARS), shown when expanded. */
  detail?: string;
}

/** Most of a tool item's content kept for expanding it. */
export const TOOL_DETAIL_CHARS = 4000;

/** A prompt sent from here and its answer. */
export interface Exchange {
  prompt: string;
  sentAt: number;
  /** The answer so far: text joined into lines, each tool item folded to one line. */
  lines: AnswerLine[];
  running: boolean;
  /** The last text line is still being written (the next text fragment continues it). */
  open: boolean;
  /** How it ended, in words, once it did. */
  end: string | null;
  ok: boolean | null;
}

export interface SessionAct {
  /** The latest exchanges, oldest first (at most EXCHANGES_KEPT). */
  exchanges: readonly Exchange[];
  /** Prompts sent from here, oldest first (recall with Up/Down). */
  sent: readonly string[];
  /** The answer's tool items are shown whole rather than folded to one line. */
  toolsExpanded: boolean;
  /** The last thing done here (a decision, a cancel, a pause), in one line. */
  notice: { text: string; ok: boolean; at: number } | null;
}

export interface ActState {
  readonly bySession: ReadonlyMap<string, SessionAct>;
  /** Something is in flight for the session (a decision, a lifecycle call). */
  readonly busy: ReadonlySet<string>;
}

export const EXCHANGES_KEPT = 5;
export const ANSWER_LINES_KEPT = 400;
export const SENT_KEPT = 50;

const EMPTY: SessionAct = {
  exchanges: [],
  sent: [],
  toolsExpanded: false,
  notice: null,
};

export function actOf(s: ActState, sessionId: string): SessionAct {
  return s.bySession.get(sessionId) ?? EMPTY;
}

/** What is remembered in the journal: prompts sent and decisions made, with their time. */
export type RecordAction = (
  sessionId: string,
  event: string,
  data: Record<string, unknown>,
) => void;

export interface ActDeps {
  api: ActApi;
  /** The one approvals book: decisions are taken on what it holds and written back to it. */
  book: Pick<ApprovalsBook, "read" | "resolved">;
  now?: () => number;
  record?: RecordAction;
  /** The key's role from verify (for the approval gate); read when needed. */
  role?: () => string | null | undefined;
}

/** What the user does to sessions (prompts, approvals, lifecycle) and what came of it. */
export interface ActStore extends StoreApi<ActState> {
  sendPrompt(sessionId: string, prompt: string): Promise<PromptOutcome | null>;
  cancelPrompt(sessionId: string): Promise<void>;
  decide(
    sessionId: string,
    approval: Approval,
    action: ResolveAction,
    note: string,
  ): Promise<DecisionOutcome | null>;
  lifecycle(sessionId: string, action: LifecycleAction): Promise<boolean>;
  /** Expand or fold the tool items of the session's answer. */
  toggleTools(sessionId: string): boolean;
  /** Stop reading every answer (the UI is closing). */
  close(): void;
}

export function createActStore(deps: ActDeps): ActStore {
  const now = deps.now ?? Date.now;
  const store = createStore<ActState>()(() => ({ bySession: new Map(), busy: new Set() }));
  const stop = new AbortController();

  const update = (sessionId: string, fn: (a: SessionAct) => SessionAct) => {
    const s = store.getState();
    const next = new Map(s.bySession);
    next.set(sessionId, fn(actOf(s, sessionId)));
    store.setState({ bySession: next });
  };
  const setBusy = (sessionId: string, on: boolean) => {
    const busy = new Set(store.getState().busy);
    if (on) busy.add(sessionId);
    else busy.delete(sessionId);
    store.setState({ busy });
  };
  const notice = (sessionId: string, text: string, ok: boolean) =>
    update(sessionId, (a) => ({ ...a, notice: { text: sanitizeLine(text), ok, at: now() } }));
  const errorText = (e: unknown): ErrorInfo => toErrorInfo(e);
  const describeError = (info: ErrorInfo) => `${info.message}${info.hint ? ` — ${info.hint}` : ""}`;

  /** Changes the running (last) exchange of a session. */
  const updateLast = (sessionId: string, fn: (x: Exchange) => Exchange) =>
    update(sessionId, (a) => {
      const last = a.exchanges.at(-1);
      if (!last) return a;
      return { ...a, exchanges: [...a.exchanges.slice(0, -1), fn(last)] };
    });

  const actions: Omit<ActStore, keyof StoreApi<ActState>> = {
    async sendPrompt(sessionId, prompt) {
      const x: Exchange = {
        prompt,
        sentAt: now(),
        lines: [],
        open: false,
        running: true,
        end: null,
        ok: null,
      };
      update(sessionId, (a) => ({
        ...a,
        exchanges: [...a.exchanges, x].slice(-EXCHANGES_KEPT),
        sent: [...a.sent.filter((p) => p !== prompt), prompt].slice(-SENT_KEPT),
      }));
      deps.record?.(sessionId, "prompt_sent", {
        prompt,
        sent_at: new Date(x.sentAt).toISOString(),
      });
      let outcome: PromptOutcome | null = null;
      try {
        outcome = await deps.api.sendPrompt(sessionId, prompt, {
          onItem: (item) => updateLast(sessionId, (cur) => appendItem(cur, item)),
          signal: stop.signal,
        });
        const { text, ok } = endText(outcome);
        updateLast(sessionId, (cur) => ({ ...cur, running: false, end: text, ok }));
        deps.record?.(sessionId, "prompt_answered", { outcome: outcome.kind, said: text });
      } catch (e) {
        const info = errorText(e);
        updateLast(sessionId, (cur) => ({
          ...cur,
          running: false,
          end: `not sent: ${describeError(info)}`,
          ok: false,
        }));
      }
      return outcome;
    },
    async cancelPrompt(sessionId) {
      try {
        const r = await deps.api.cancelPrompt(sessionId);
        notice(
          sessionId,
          r.cancelled
            ? "Cancelled the running prompt"
            : "Nothing was running: no prompt was cancelled",
          r.cancelled,
        );
      } catch (e) {
        notice(sessionId, `Cancel failed: ${describeError(errorText(e))}`, false);
      }
    },
    async decide(sessionId, approval, action, note) {
      setBusy(sessionId, true);
      try {
        const outcome = await decideApproval(
          deps.api,
          deps.book,
          sessionId,
          approval.id,
          action,
          note === "" ? undefined : note,
        );
        const line = describeDecision(outcome, approval.id, action);
        notice(sessionId, line, outcome.kind === "resolved");
        deps.record?.(sessionId, "approval_decision", {
          approval_id: approval.id,
          kind: approval.kind ?? null,
          action,
          note: note === "" ? null : note,
          outcome: outcome.kind,
          said: line,
        });
        // The book has dropped it; read the list again (it also drops one resolved elsewhere).
        if (outcome.kind === "resolved") void deps.book.read(sessionId);
        return outcome;
      } catch (e) {
        notice(
          sessionId,
          `${action === "approve" ? "Approve" : "Reject"} failed: ${describeError(errorText(e))}`,
          false,
        );
        return null;
      } finally {
        setBusy(sessionId, false);
      }
    },
    async lifecycle(sessionId, action) {
      setBusy(sessionId, true);
      try {
        const r = await deps.api.lifecycle(sessionId, action);
        notice(
          sessionId,
          `${lifecyclePast(action)[0]?.toUpperCase()}${lifecyclePast(action).slice(1)}${r.message ? `: ${r.message}` : ""}`,
          true,
        );
        return true;
      } catch (e) {
        notice(sessionId, `${action} failed: ${describeError(errorText(e))}`, false);
        return false;
      } finally {
        setBusy(sessionId, false);
      }
    },
    toggleTools(sessionId) {
      let now = false;
      update(sessionId, (a) => {
        now = !a.toolsExpanded;
        return { ...a, toolsExpanded: now };
      });
      return now;
    },
    close() {
      stop.abort();
    },
  };
  return Object.assign(store, actions);
}

/** An answer item added to an exchange's lines (text continues an open text line). */
function appendItem(x: Exchange, item: PromptItem): Exchange {
  let lines = x.lines.slice();
  let open = x.open;
  if (item.type === "text") {
    const parts = sanitize(item.content, { keepSgr: false }).split("\n");
    const first = parts.shift() ?? "";
    const last = lines.at(-1);
    if (open && last?.kind === "text")
      lines[lines.length - 1] = { kind: "text", text: last.text + first };
    else lines.push({ kind: "text", text: first });
    for (const p of parts) lines.push({ kind: "text", text: p });
    open = true;
  } else if (item.type !== "done" && item.type !== "error") {
    lines.push({
      kind: "tool",
      text: toolLine(item),
      detail: cutText(sanitize(toolDetail(item.content), { keepSgr: false }), TOOL_DETAIL_CHARS),
    });
    open = false;
  }
  if (lines.length > ANSWER_LINES_KEPT) lines = lines.slice(-ANSWER_LINES_KEPT);
  return { ...x, lines, open };
}

/** How a prompt's end is said, and whether it went well. */
function endText(o: PromptOutcome): { text: string; ok: boolean } {
  switch (o.kind) {
    case "done":
      return { text: "done", ok: true };
    case "error":
      return promptEndIsCancel(o)
        ? { text: `cancelled (${cutText(sanitizeLine(o.message), 300)})`, ok: false }
        : { text: `ended in an error: ${cutText(sanitizeLine(o.message), 500)}`, ok: false };
    case "cut":
      return { text: `cut before it ended: ${sanitizeLine(o.reason)}`, ok: false };
    case "stopped":
      return { text: "no longer read (closed)", ok: false };
    case "already_running":
      return {
        text: "not sent yet: a prompt is already running in this session; this one waits in its follow-up queue (C cancels the running one)",
        ok: false,
      };
    case "accepted":
      return { text: "accepted; its answer follows on the session's stream", ok: true };
  }
}
