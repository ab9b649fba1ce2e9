import type { StoredEvent } from "./eventHistory.js";

/** How frames are written: the terminator and whether comment lines are interleaved. */
export interface FrameStyle {
  nl: string;
  comments: boolean;
  /** Write the `id:` line (false: the documented stream, which carries no ids). */
  ids: boolean;
}

function dataLines(data: string, nl: string): string {
  // JSON.stringify never yields a newline; raw test data may, and each line needs its own field.
  if (!/[\r\n]/.test(data)) return `data: ${data}${nl}`;
  let out = "";
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}${nl}`;
  return out;
}

export function formatEvent(e: StoredEvent, style: FrameStyle): string {
  const { nl } = style;
  const id = style.ids ? `id: ${e.id}${nl}` : "";
  if (!style.comments) return `${id}event: ${e.event}${nl}${dataLines(e.data, nl)}${nl}`;
  // Comments before and inside the event: a parser must ignore both without losing fields.
  return `: before ${e.id}${nl}${id}event: ${e.event}${nl}: inside ${e.id}${nl}${dataLines(e.data, nl)}${nl}`;
}

export function formatHeartbeat(timestamp: string, style: FrameStyle): string {
  const { nl } = style;
  const body = `event: heartbeat${nl}data: {"timestamp":"${timestamp}"}${nl}${nl}`;
  return style.comments ? `: heartbeat${nl}${body}` : body;
}

export function formatPreamble(retryMs: number | null, style: FrameStyle): string {
  const { nl } = style;
  let s = style.comments ? `: stream opened${nl}` : "";
  if (retryMs !== null) s += `retry: ${retryMs}${nl}${nl}`;
  return s;
}

/** A comment line: invisible to EventSource, seen by parsers that report comments. */
export function formatComment(text: string, style: FrameStyle): string {
  return `: ${text}${style.nl}`;
}
