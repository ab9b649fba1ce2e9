import { type Approval, approvalGate } from "../../protocol/approvals.js";
import type { SessionAct } from "../../store/act/actStore.js";
import { describeApproval } from "../../store/act/approvalDecision.js";
import { type ApprovalsEntry, pendingCutNote } from "../../store/approvals/approvalsBook.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { wrapLine } from "../../text/wrap.js";
import { keyOf } from "./keymap.js";
import type { PromptEditing } from "./uiStore.js";

/**
 * What a pane shows under its timeline about acting on the session: its pending approvals as
 * the approvals book holds them (each with its id and the keys, or why they are disabled), the last prompt sent from here and its answer
 * as it streams, how it ended, the last decision or lifecycle result, and the prompt box.
 * Plain data; the pane only draws it. At most `maxRows` lines: the answer's newest lines win.
 */

export type ActTone = "accent" | "muted" | "ok" | "warn" | "error" | "plain";

export interface ActLine {
  text: string;
  tone: ActTone;
  bold?: boolean;
}

export interface ActLinesInput {
  act: SessionAct;
  /** The session's entry in the approvals book. */
  approvals: ApprovalsEntry;
  editing: PromptEditing | null;
  /** The key's role from verify (undefined: not known yet). */
  role: string | null | undefined;
  /** Why deciding approvals is disabled by scope, or null. */
  writeDisabled: string | null;
  /** Why the session failed (its error_message, the failed prompt's error), when it did. */
  failure?: string | null;
  /** The session's follow-up queue (next first) and why it waits for the user, if it does. */
  queue?: { items: readonly string[]; held: string | null };
  width: number;
  maxRows: number;
}

/** Most rows a failure's reason takes in a pane (the detail view shows it whole). */
const FAILURE_ROWS = 3;

/** Pending approvals listed in a pane; more are counted (the dialog lists them all). */
const APPROVALS_SHOWN = 3;

function approvalLines(a: Approval, input: ActLinesInput, several: boolean): ActLine[] {
  const gate = input.role === undefined ? null : approvalGate(a, input.role);
  const keys = input.writeDisabled
    ? `disabled: ${input.writeDisabled}`
    : gate
      ? `${keyOf("approve")}/${keyOf("reject")} disabled: ${gate}`
      : `${keyOf("approve")} approve · ${keyOf("reject")} reject${several ? " (choose which in the dialog)" : ""}`;
  return [
    { text: `⚑ needs you: ${describeApproval(a)}`, tone: "warn", bold: true },
    {
      text: `  ${sanitizeLine(a.id)} — ${keys}`,
      tone: gate || input.writeDisabled ? "muted" : "accent",
    },
  ];
}

export function actLines(input: ActLinesInput): ActLine[] {
  const { act, editing, width } = input;
  const w = Math.max(10, width);
  const out: ActLine[] = [];
  const head: ActLine[] = [];
  // Oldest first, as the book holds them and the keys' dialog offers them.
  // A failure says why in the pane, as an approval says what it waits for.
  if (input.failure) {
    for (const piece of wrapLine(`✗ failed: ${input.failure}`, w).slice(0, FAILURE_ROWS))
      head.push({ text: piece, tone: "error", bold: head.length === 0 });
  }
  const pending = input.approvals.pending;
  for (const a of pending.slice(0, APPROVALS_SHOWN))
    head.push(...approvalLines(a, input, pending.length > 1));
  const cut = pendingCutNote(input.approvals);
  if (pending.length > APPROVALS_SHOWN)
    head.push({
      text: `  and ${pending.length - APPROVALS_SHOWN} more pending (${keyOf("approve")} lists ${cut ? "those read" : "them all"})`,
      tone: "muted",
    });
  if (cut) head.push({ text: `  ${cut}`, tone: "warn" });
  const err = input.approvals.error;
  if (err) {
    head.push({
      text: `approvals: ${err.message}${err.hint ? ` — ${err.hint}` : ""}`,
      tone: "error",
    });
  }

  const x = act.exchanges.at(-1);
  const answer: ActLine[] = [];
  if (x) {
    const firstLine = x.prompt.split("\n")[0] ?? "";
    const more = x.prompt.includes("\n") ? " …" : "";
    answer.push({ text: `› you: ${firstLine}${more}`, tone: "accent", bold: true });
    const lines = x.lines.slice();
    if (lines.at(-1)?.kind === "text" && lines.at(-1)?.text === "") lines.pop();
    for (const l of lines) {
      for (const piece of wrapLine(l.text, w - 2)) {
        answer.push({ text: `  ${piece}`, tone: l.kind === "tool" ? "muted" : "plain" });
      }
      if (l.kind === "tool" && act.toolsExpanded && l.detail) {
        for (const row of l.detail.split("\n")) {
          for (const piece of wrapLine(row, w - 6))
            answer.push({ text: `      ${piece}`, tone: "muted" });
        }
      }
    }
    if (x.running) answer.push({ text: "  … answering (C cancels)", tone: "muted" });
    else if (x.end)
      answer.push({
        text: `  ${x.ok ? "✓" : "✗"} answer ${x.end}`,
        tone: x.ok ? "ok" : "error",
      });
  }
  const tail: ActLine[] = [];
  if (act.notice) tail.push({ text: act.notice.text, tone: act.notice.ok ? "ok" : "error" });
  tail.push(...queueLines(input.queue));
  if (editing) {
    const draftLines = editing.draft.split("\n");
    const shown = draftLines.slice(-3);
    if (draftLines.length > 3)
      tail.push({ text: `  (${draftLines.length - 3} lines above)`, tone: "muted" });
    shown.forEach((l, i) => {
      const cursor = i === shown.length - 1 ? "▏" : "";
      tail.push({
        text: `${i === 0 && draftLines.length <= 3 ? "reply › " : "        "}${l}${cursor}`,
        tone: "accent",
      });
    });
    tail.push({
      text:
        editing.queued === undefined
          ? `${keyOf("promptSend")} send (queued while one runs) · ${keyOf("promptSendNow")} send now · ${keyOf("promptNewline")} new line · ↑↓ recall · Esc close`
          : `editing queued reply ${editing.queued + 1} · ${keyOf("promptSend")} keep it queued · ${keyOf("promptSendNow")} send it now · Esc close`,
      tone: "muted",
    });
  }
  const room = Math.max(0, input.maxRows);
  // The prompt box and the notice first, then the approvals, then the newest of the answer.
  const fixed = [...head, ...tail];
  if (fixed.length >= room) return [...head, ...tail].slice(-room);
  const answerRoom = room - fixed.length;
  out.push(...head, ...answer.slice(-answerRoom), ...tail);
  return out;
}

/** The follow-up queue in a pane: how many wait, the next one's first line, what holds it. */
function queueLines(q: ActLinesInput["queue"]): ActLine[] {
  if (!q || q.items.length === 0) return [];
  const next = q.items[0] ?? "";
  const first = sanitizeLine(next.split("\n")[0] ?? "");
  const out: ActLine[] = [
    {
      text: `⧗ queued ${q.items.length}: next › ${first}${next.includes("\n") ? " …" : ""} (${keyOf("followUpQueue")} edits)`,
      tone: "accent",
    },
  ];
  if (q.held !== null) {
    out.push({
      text: `  waiting for you: ${q.held}; the next goes after a prompt you send completes (${keyOf("followUpQueue")}, then ${keyOf("promptSendNow")} in the prompt box, sends one now)`,
      tone: "warn",
    });
  } else out.push({ text: "  the next goes when the running prompt completes", tone: "muted" });
  return out;
}
