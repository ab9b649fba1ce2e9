/**
 * How a prompt's answer is told, in one place for the CLI and the pane: a tool item folded to
 * one line, and what counts as a cancel.
 */
import type { PromptEnd } from "../../client/promptAnswer.js";
import type { PromptItem } from "../../protocol/prompt.js";
import { recordValue } from "../../protocol/values.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";

/** Longest folded tool line (characters). */
export const TOOL_LINE_CHARS = 160;

/** "⏺ tool_use read_file src/index.ts": one line, however long the item. */
export function toolLine(item: PromptItem): string {
  const label =
    item.type === "tool_use" ? "tool" : item.type === "tool_result" ? "result" : item.type;
  let body = item.content;
  try {
    const o = recordValue(JSON.parse(body));
    if (o) {
      body = Object.values(o)
        .map((v) => (typeof v === "string" ? v : JSON.stringify(v)))
        .join(" ");
    }
  } catch {
    // Not JSON: the text itself.
  }
  const lines = body.split(/\r\n|\r|\n/).filter((l) => l.trim() !== "");
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
  return `[${sanitizeLine(label)}] ${cutText(sanitizeLine(lines[0] ?? ""), TOOL_LINE_CHARS)}${more}`;
}

/** A tool item's whole content: a JSON object as `key: value` lines, else the text itself. */
export function toolDetail(content: string): string {
  try {
    const o = recordValue(JSON.parse(content));
    if (o) {
      return Object.entries(o)
        .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join("\n");
    }
  } catch {
    // Not JSON: the text itself.
  }
  return content;
}

/** An answer that ended in an error saying it was cancelled. */
export function promptEndIsCancel(end: PromptEnd): boolean {
  return end.kind === "error" && /\bcancel(l)?ed\b/i.test(end.message);
}
