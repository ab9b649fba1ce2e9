import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import {
  AgentSessionsError,
  EXIT,
  HttpError,
  UsageError,
  WrongStateError,
} from "../../client/errors.js";
import { type Approval, noteProblem, type ResolveAction } from "../../protocol/approvals.js";
import { DESTROY_LOSES } from "../../protocol/launch.js";
import { type LifecycleAction, lifecyclePast } from "../../protocol/prompt.js";
import { stateRefusal } from "../../protocol/states.js";
import {
  type DecisionOutcome,
  decideApproval,
  describeDecision,
} from "../../store/act/approvalDecision.js";
import { actOnEach } from "../../store/act/eachSession.js";
import { unsafeIdOf } from "../../store/admitSession.js";
import {
  type ApprovalsBook,
  createApprovalsBook,
  recordAwaitsApproval,
} from "../../store/approvals/approvalsBook.js";
import { readCatalogue } from "../../store/catalogueReader.js";
import { formatCount } from "../../text/format.js";
import { keyRedactor, type RedactFn } from "../../text/redact.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson, table } from "../output.js";
import { inputIsTerminal } from "../terminalCheck.js";
import { humanTime, timeStyleFor } from "../timeStyle.js";

async function withClient(
  cmd: Command,
  run: (client: ApiClient, book: ApprovalsBook, redact: RedactFn) => Promise<void>,
): Promise<void> {
  let client: ApiClient | null = null;
  try {
    const ctx = await commandContext(cmd);
    client = ctx.client;
    // The approvals read here are admitted as the UI admits them (sanitized, key redacted).
    const { redact } = keyRedactor(ctx.apiKey);
    await run(ctx.client, createApprovalsBook({ api: ctx.client, redact }), redact);
  } catch (e) {
    fail(e);
  } finally {
    await client?.close();
  }
}

/** `cancel`: says whether a prompt was running; both are a success. */
export function runCancel(cmd: Command, sessionId: string, json: boolean): Promise<void> {
  return withClient(cmd, async (client) => {
    const answer = await client.cancelPrompt(sessionId);
    if (json) printJson(answer);
    else
      out(
        answer.cancelled
          ? `cancelled the prompt running in ${sessionId}`
          : `nothing was running in ${sessionId}: no prompt was cancelled`,
      );
  });
}

/**
 * `approvals`: the pending approvals of the sessions named (default: every listed session
 * whose record says it awaits an approval; with --all every listed session), read through
 * the approvals book and the request budget, as a table, oldest pending first; --all adds
 * resolved ones, as the service lists them. A session of the walk that is gone or refused
 * is said on stderr and skipped; a named one is an error. A list that is cut (the walk over
 * the sessions stopped early, or a session listed more approvals than are read) is said as
 * `sessions --all` says it: a warning with the real counts, a marker element ending the JSON
 * array, and exit 7.
 */
export function runApprovals(
  cmd: Command,
  ids: string[],
  opts: { json: boolean; all: boolean; absoluteTime?: boolean },
): Promise<void> {
  return withClient(cmd, async (client, book, redact) => {
    const found: Approval[] = [];
    const cuts: string[] = [];
    const named = ids.length > 0;
    let targets = ids;
    if (!named) {
      targets = [];
      const listed = new Set<string>();
      // The one reader of the list (the catalogue's): each record admitted once.
      const pages = readCatalogue(client, { limit: 100 }, { redact });
      for (;;) {
        const next = await pages.next();
        if (next.done) {
          if (!next.value.complete) {
            cuts.push(
              `the session list stopped (${next.value.reason}) after ${plural(next.value.pages, "page")}`,
            );
          }
          break;
        }
        for (const s of next.value.records) {
          // Only a session that awaits one has pending approvals to read.
          if (!opts.all && !recordAwaitsApproval(s)) continue;
          if (unsafeIdOf(s) !== null) {
            err(`warning: skipped a session whose id cannot be used in a request`);
          } else if (!listed.has(s.session_id)) {
            // A page sent again lists a session twice: its approvals are read once.
            listed.add(s.session_id);
            targets.push(s.session_id);
          }
        }
      }
    }
    let skipped = 0;
    for (const id of targets) {
      try {
        const entry = await book.read(id, { throwOnError: true });
        found.push(...(opts.all ? entry.all : entry.pending));
        if (entry.listed > entry.all.length) {
          const held = opts.all
            ? plural(entry.listed, "approval")
            : `${formatCount(entry.pendingCount)} pending`;
          cuts.push(`${id} has ${held}, only the first ${formatCount(entry.all.length)} were read`);
        }
      } catch (e) {
        if (named || !(e instanceof AgentSessionsError) || e.exitCode === EXIT.invalidKey) throw e;
        if (e instanceof HttpError && e.status >= 500) throw e;
        skipped++;
        err(`warning: ${id}: ${e.message}`);
      }
    }
    const reason = cuts.join("; ");
    if (opts.json) {
      // A cut list ends with a marker element, so a script reading only stdout still knows.
      printJson(
        reason === "" ? found : [...found, { incomplete: true, reason, listed: found.length }],
      );
    } else if (found.length === 0) {
      err(opts.all ? "no approvals" : "no pending approvals");
    } else {
      const cell = (v: unknown) => (typeof v === "string" ? sanitizeLine(v) : "");
      const rows = found.map((a) => [
        cell(a.session_id),
        cell(a.id),
        cell(a.kind),
        cell(a.status ?? "pending"),
        [
          a.required_role ? `role ${cell(a.required_role)}` : "",
          a.required_team_id ? `team ${cell(a.required_team_id)}` : "",
        ]
          .filter(Boolean)
          .join(" or ") || "-",
        humanTime(cell(a.created_at), timeStyleFor(opts)),
        cell(a.message),
      ]);
      out(table(["SESSION", "APPROVAL", "KIND", "STATUS", "NEEDS", "SINCE", "MESSAGE"], rows));
    }
    if (skipped > 0) err(`${skipped} session${skipped === 1 ? "" : "s"} skipped (see above)`);
    if (reason !== "") {
      err(
        `warning: the list is incomplete: ${reason} (${plural(found.length, "approval")} listed)`,
      );
      process.exitCode = EXIT.incomplete;
    }
  });
}

const plural = (n: number, noun: string) => `${formatCount(n)} ${noun}${n === 1 ? "" : "s"}`;

/** What to do after each way a decision does not go through. */
const REFUSAL_HINTS: Record<Exclude<DecisionOutcome["kind"], "resolved">, string> = {
  already:
    "Nothing to do: someone decided first (agent-sessions approvals lists what is still pending).",
  gone: "It may have been withdrawn; agent-sessions approvals lists what is still pending.",
  no_session: "Check the session id: agent-sessions sessions lists them.",
  not_allowed:
    "Ask someone with that role, or an organization admin or owner, to decide it (agent-sessions approvals shows who may).",
};

/**
 * `approve` / `reject`: resolves one approval. Already resolved (409): who resolved it and
 * when, read again, and exit 1; not found (404): whether the approval or the session is
 * missing, exit 1; refused by the approval's role (403): which role it needs and the key's,
 * exit 4. A note over 512 characters is refused before anything is sent (exit 2).
 */
export async function runResolve(
  cmd: Command,
  sessionId: string,
  approvalId: string,
  action: ResolveAction,
  note: string | undefined,
  json: boolean,
): Promise<void> {
  const bad = noteProblem(note);
  if (bad !== null) {
    fail(
      new UsageError(
        `Cannot send the decision: ${bad}.`,
        "Shorten the note to 512 characters or fewer.",
      ),
    );
    return;
  }
  await withClient(cmd, async (client, book) => {
    const outcome = await decideApproval(client, book, sessionId, approvalId, action, note);
    const line = describeDecision(outcome, approvalId, action);
    if (outcome.kind === "resolved") {
      if (json) printJson(outcome.approval);
      else out(line);
      return;
    }
    if (json && outcome.kind === "already" && outcome.approval) printJson(outcome.approval);
    err(`error: ${line}`);
    err(`hint: ${REFUSAL_HINTS[outcome.kind]}`);
    process.exitCode = outcome.kind === "not_allowed" ? EXIT.missingScope : EXIT.error;
  });
}

/**
 * `pause`, `resume`, `start`: one line from the documented answer per session. Several
 * sessions are acted on in turn (runEach): a failure on one does not stop the rest.
 */
export function runLifecycle(
  cmd: Command,
  sessionIds: string[],
  action: LifecycleAction,
  json: boolean,
): Promise<void> {
  return withClient(cmd, (client) =>
    runEach(
      sessionIds,
      action,
      (id) => lifecycleChecked(client, id, action),
      json,
      (id, answer) => {
        const parts = [`${lifecyclePast(action)} ${id}`];
        if (answer.message) parts.push(`(${sanitizeLine(answer.message)})`);
        if (answer.preview_url) parts.push(`preview ${sanitizeLine(answer.preview_url)}`);
        return parts.join(" ");
      },
    ),
  );
}

/**
 * The lifecycle call, after the session's state is asked: the service answers a resume of a
 * running session with a success, so what the state does not allow (protocol/states.ts) is
 * refused here with nothing sent (exit 12). A record that cannot be read leaves the decision
 * to the service, which says why.
 */
async function lifecycleChecked(client: ApiClient, id: string, action: LifecycleAction) {
  if (action !== "start") {
    const state: unknown = await client.getSession(id).then(
      (s) => s.state,
      () => null,
    );
    const refusal = stateRefusal(action, typeof state === "string" ? state : null);
    if (refusal) {
      throw new WrongStateError(
        `${action} ${sanitizeLine(id)}: ${sanitizeLine(refusal)}; nothing was sent`,
        "agent-sessions sessions shows each session's state; `start` starts one whatever its state.",
      );
    }
  }
  return client.lifecycle(id, action);
}

/**
 * `destroy`: destroys each session given, irreversibly. On a terminal it asks first, naming
 * each session and what is lost; otherwise --yes is required (exit 2 without it, nothing sent).
 */
export async function runDestroy(
  cmd: Command,
  sessionIds: string[],
  opts: { yes: boolean; json: boolean },
): Promise<void> {
  if (!opts.yes) {
    if (!inputIsTerminal() || !process.stderr.isTTY) {
      fail(
        new UsageError(
          `Refusing to destroy ${sessionIds.join(", ")} without a confirmation: destroying is irreversible.`,
          `Add --yes to destroy without asking: agent-sessions destroy ${sessionIds.join(" ")} --yes`,
        ),
      );
      return;
    }
    err(destroyWarning(sessionIds));
    if (!(await askYes(`Destroy ${plural(sessionIds.length, "session")}? [y/N] `))) {
      err("nothing was destroyed");
      process.exitCode = EXIT.error;
      return;
    }
  }
  await withClient(cmd, (client) =>
    runEach(
      sessionIds,
      "destroy",
      (id) => client.destroySession(id),
      opts.json,
      (id) => `destroyed ${id}`,
    ),
  );
}

/** What a destroy costs, said before it is confirmed. */
function destroyWarning(sessionIds: readonly string[]): string {
  return `Destroying ${sessionIds.join(", ")} is irreversible: ${DESTROY_LOSES}.`;
}

async function askYes(question: string): Promise<boolean> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await rl.question(question));
  } finally {
    rl.close();
  }
}

/**
 * One action on each session given, in turn, a failure on one not stopping the rest. One
 * session: its line, or its error and hint as any command says one. Several: a line per
 * session that went through (stdout), one per session that did not (stderr), then, when any
 * failed, one `error:` line naming them, exiting with the first failure's code. --json: the
 * answer (one session), or an array of `{session_id, ok, answer | error}` in the order given.
 */
async function runEach<T>(
  sessionIds: readonly string[],
  verb: string,
  act: (id: string) => Promise<T>,
  asJson: boolean,
  describe: (id: string, value: T) => string,
): Promise<void> {
  const results = await actOnEach(sessionIds, act, (r) => {
    if (asJson) return;
    if (r.ok) out(describe(r.sessionId, r.value));
    else if (sessionIds.length > 1) err(`${r.sessionId}: failed: ${errorLine(r.error)}`);
  });
  const failed = results.filter((r) => !r.ok);
  if (asJson && sessionIds.length === 1) {
    // One session: its answer as the service sent it, as before several could be given.
    if (results[0]?.ok) printJson(results[0].value ?? null);
  } else if (asJson) {
    printJson(
      results.map((r) =>
        r.ok
          ? { session_id: r.sessionId, ok: true, answer: r.value ?? null }
          : { session_id: r.sessionId, ok: false, error: errorJson(r.error) },
      ),
    );
  }
  const first = failed[0];
  if (first === undefined || first.ok) return;
  if (sessionIds.length === 1) {
    fail(first.error);
    return;
  }
  err(
    `error: ${failed.length} of ${sessionIds.length} sessions could not ${verb}: ${failed.map((r) => r.sessionId).join(", ")}`,
  );
  err("hint: The others went through; see each session's line above.");
  process.exitCode = exitCodeOf(first.error);
}

function errorLine(e: unknown): string {
  return sanitizeLine(e instanceof Error ? e.message : String(e));
}

function errorJson(e: unknown): { code: string; message: string } {
  return {
    code: e instanceof AgentSessionsError ? e.code : "error",
    message: errorLine(e),
  };
}

function exitCodeOf(e: unknown): number {
  return e instanceof AgentSessionsError ? e.exitCode : EXIT.error;
}
