import { createStore, type StoreApi } from "zustand/vanilla";
import type { GitAction, GitActionKind, GitResult } from "../protocol/git.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { sanitize, sanitizeLine } from "../text/sanitize.js";
import { type ErrorInfo, toErrorInfo } from "./errorInfo.js";

/**
 * Git actions on a session: what is running (for the spinner and "quit anyway?"), and how
 * the last one ended. One action at a time: the service works on one session's workspace,
 * and a second keystroke while one runs is more likely a mistake than a plan.
 */

export type ActionKind = GitActionKind;

export interface RunningAction {
  kind: ActionKind;
  sessionId: string;
  startedAt: number;
}

export interface ActionOutcome {
  kind: ActionKind;
  sessionId: string;
  ok: boolean;
  /** One line: what happened, or the error (a 403's server message verbatim, sanitized). */
  message: string;
  /** Git's output, sanitized, colours kept. */
  output: string | null;
  result: GitResult | null;
  error: ErrorInfo | null;
  startedAt: number;
  finishedAt: number;
}

export interface ActionsState {
  readonly running: RunningAction | null;
  readonly last: ActionOutcome | null;
  /** Most recent first, bounded. */
  readonly history: readonly ActionOutcome[];
  /**
   * Run an action. `fn` gets an AbortSignal that cancel() fires. Never throws: failures end
   * up in `last` (and the returned outcome).
   */
  run(
    action: GitAction,
    sessionId: string,
    fn: (signal: AbortSignal) => Promise<GitResult>,
  ): Promise<ActionOutcome>;
  cancel(): void;
  /** Hide the last result. */
  dismiss(): void;
}

export type ActionsStore = StoreApi<ActionsState>;

const HISTORY_LIMIT = 20;
const MAX_OUTPUT_CHARS = 64 * 1024;

const ACTION_WORDS: Record<ActionKind, string> = {
  clone: "clone",
  push: "push",
  branch: "branch",
  pr: "pull request",
};

/**
 * What a git answer means, on one line (sanitized, newlines folded): for the CLI's output and the UI's result
 * line alike. Uses what the answer carries and falls back on what was asked.
 */
export function describeResult(action: GitAction, r: GitResult): string {
  const s = (v: string | null | undefined) => (v ? sanitizeLine(v) : null);
  const word = ACTION_WORDS[action.kind];
  if (!r.ok) return `${word} failed: ${s(r.error) ?? "the service reported a failure"}`;
  if (r.accepted && r.sha === null && r.branch === null && r.prNumber === null) {
    return `${word} accepted by the service; its progress arrives on the session's event stream`;
  }
  const sha = s(r.sha);
  const at = sha ? ` at ${sha.slice(0, 12)}` : "";
  switch (action.kind) {
    case "clone": {
      const repo = s(r.repoUrl) ?? s(action.repoUrl);
      const branch = s(r.branch);
      return `cloned ${repo}${branch ? ` (branch ${branch})` : ""}${at}`;
    }
    case "push": {
      // git says so when the remote already has every commit: nothing was pushed.
      const same = /everything up[- ]to[- ]date/i.exec(r.output ?? "");
      if (same) return `nothing to push (${same[0]})`;
      const branch = s(r.branch) ?? s(action.branch);
      return `pushed${branch ? ` ${branch}` : ""}${at}`;
    }
    case "branch":
      return `created branch ${s(r.branch) ?? s(action.name)}${at}`;
    case "pr": {
      const n = r.prNumber !== null ? ` #${r.prNumber}` : "";
      const url = s(r.prUrl);
      const branch = s(r.branch) ?? s(action.head);
      return `opened pull request${n}: ${s(action.title)}${url ? ` ${url}` : ""}${branch ? ` (branch ${branch})` : ""}`;
    }
  }
}

export function createActionsStore(
  opts: { now?: () => number; redact?: RedactFn } = {},
): ActionsStore {
  const now = opts.now ?? Date.now;
  const redact = opts.redact ?? noRedaction;
  let controller: AbortController | null = null;

  return createStore<ActionsState>()((set, get) => {
    function finish(outcome: ActionOutcome): ActionOutcome {
      set({
        running: null,
        last: outcome,
        history: [outcome, ...get().history].slice(0, HISTORY_LIMIT),
      });
      return outcome;
    }

    return {
      running: null,
      last: null,
      history: [],

      async run(action, sessionId, fn) {
        const kind = action.kind;
        const startedAt = now();
        const busy = get().running;
        if (busy) {
          const message = `${busy.kind} on ${busy.sessionId} is still running; wait for it to finish`;
          // Not recorded as `last`: the running action's result is what the user waits for.
          return {
            kind,
            sessionId,
            ok: false,
            message,
            output: null,
            result: null,
            error: { message, hint: null, code: "busy", requiredScope: null },
            startedAt,
            finishedAt: startedAt,
          };
        }
        const ctl = new AbortController();
        controller = ctl;
        set({ running: { kind, sessionId, startedAt } });
        try {
          const result = await fn(ctl.signal);
          const output =
            result.output !== null && result.output !== ""
              ? redact(sanitize(result.output.slice(0, MAX_OUTPUT_CHARS), { keepSgr: true }))
              : null;
          return finish({
            kind,
            sessionId,
            ok: result.ok,
            message: redact(describeResult(action, result)),
            output,
            result,
            error: null,
            startedAt,
            finishedAt: now(),
          });
        } catch (e) {
          const error = toErrorInfo(e, redact);
          return finish({
            kind,
            sessionId,
            ok: false,
            message: error.message,
            output: null,
            result: null,
            error,
            startedAt,
            finishedAt: now(),
          });
        } finally {
          if (controller === ctl) controller = null;
        }
      },

      cancel() {
        controller?.abort();
      },

      dismiss() {
        if (get().last) set({ last: null });
      },
    };
  });
}
