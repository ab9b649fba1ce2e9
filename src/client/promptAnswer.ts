/**
 * Reading the answer of `POST …/sessions/{id}/prompt`: a `text/event-stream` of
 * `{type, content}` items (with or without `event:` names), read with the project's one SSE
 * reader. How the answer ended is always said: `done`, the agent's `error`, or cut (the
 * stream closed or failed before either, or went silent past the bound), never silently.
 */
import type { Dispatcher } from "undici";
import { type PromptItem, readPromptItem } from "../protocol/prompt.js";
import { createSseReader } from "./sseReader.js";

/** How a prompt's answer ended. */
export type PromptEnd =
  | { kind: "done"; items: number }
  | { kind: "error"; items: number; message: string }
  /** The stream ended (or failed, or went silent) before `done` or an `error` item. */
  | { kind: "cut"; items: number; reason: string }
  /** This client stopped reading (its signal). */
  | { kind: "stopped"; items: number };

/** Largest answer item kept (bytes); a larger one is cut and said. */
export const MAX_PROMPT_ITEM_BYTES = 1024 * 1024;
/** Longest silence inside an answer before it counts as cut. */
export const PROMPT_IDLE_MS = 300_000;

export interface ReadPromptOptions {
  onItem: (item: PromptItem) => void;
  signal?: AbortSignal;
  /** Longest silence between two chunks (default PROMPT_IDLE_MS). */
  idleMs?: number;
  /**
   * Backpressure: after each chunk, when this gives a promise, nothing more is read from the
   * socket until it settles (the output is full), and the silence bound does not run meanwhile.
   */
  pace?: () => Promise<void> | null;
}

/** Reads the streamed body to its end; items go to onItem as they arrive. */
export async function readPromptStream(
  body: Dispatcher.ResponseData["body"],
  opts: ReadPromptOptions,
): Promise<PromptEnd> {
  let items = 0;
  let end: PromptEnd | null = null;
  const reader = createSseReader({
    maxEventBytes: MAX_PROMPT_ITEM_BYTES,
    onMessage: (msg) => {
      if (end !== null) return;
      const item = readPromptItem(msg.event, msg.data);
      items++;
      opts.onItem(item);
      if (item.type === "done") end = { kind: "done", items };
      else if (item.type === "error") end = { kind: "error", items, message: item.content };
    },
  });
  const idleMs = opts.idleMs ?? PROMPT_IDLE_MS;
  let idle: NodeJS.Timeout | null = null;
  let silent = false;
  const arm = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => {
      silent = true;
      body.destroy();
    }, idleMs);
  };
  try {
    arm();
    for await (const chunk of body as AsyncIterable<Buffer>) {
      arm();
      const oversized = reader.push(chunk);
      if (oversized) {
        body.destroy();
        return {
          kind: "cut",
          items,
          reason: `an item of the answer was larger than ${MAX_PROMPT_ITEM_BYTES} bytes`,
        };
      }
      if (end !== null) {
        // The answer is complete; whatever the service still sends is not part of it.
        body.destroy();
        return end;
      }
      const room = opts.pace?.();
      if (room) {
        if (idle) clearTimeout(idle);
        await room;
        arm();
      }
    }
    reader.end();
  } catch (e) {
    if (end !== null) return end;
    if (opts.signal?.aborted) return { kind: "stopped", items };
    if (silent) return { kind: "cut", items, reason: `no data for ${Math.round(idleMs / 1000)} s` };
    const why = e instanceof Error && e.message ? e.message : "the connection failed";
    return { kind: "cut", items, reason: `the connection failed (${why})` };
  } finally {
    if (idle) clearTimeout(idle);
  }
  if (end !== null) return end;
  if (opts.signal?.aborted) return { kind: "stopped", items };
  if (silent) return { kind: "cut", items, reason: `no data for ${Math.round(idleMs / 1000)} s` };
  return { kind: "cut", items, reason: "the service closed the answer before it said done" };
}
