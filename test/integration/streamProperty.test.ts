import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribeToSession } from "../../src/client/eventStream.js";
import { RequestBudget } from "../../src/client/requestBudget.js";
import { createSseReader, type SseMessage } from "../../src/client/sseReader.js";
import { decodeEvent, type SessionEvent } from "../../src/protocol/index.js";

/**
 * The SSE reading path gives the same events for any stream of events, whatever the line
 * endings (LF, CRLF, CR, mixed), comment lines, and wherever the bytes are cut, multi-byte
 * UTF-8 characters included: once in memory (the reader itself) and once over a loopback
 * socket through the whole subscription.
 */

interface GenEvent {
  comment: string | null;
  event: string | undefined;
  id: string | undefined;
  dataLines: string[];
}

const NAMES = [
  "prompt_progress",
  "process_output",
  "file_changed",
  "state_changed",
  "heartbeat",
  "brand_new",
];
// Field text without line breaks: any well-formed characters, astral ones included, with the
// characters that matter to the format (colon, space, tab, BOM-like) made likely.
const lineText = fc
  .string({
    unit: fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(":", " ", "\t", "é", "日本", "🎉", "\uFEFF", "{", '"'),
      },
    ),
    maxLength: 24,
  })
  .map((s) => s.replace(/[\r\n\0]/g, "_"));

const genEvent: fc.Arbitrary<GenEvent> = fc
  .record({
    comment: fc.option(lineText, { nil: null }),
    event: fc.option(fc.constantFrom(...NAMES), { nil: undefined }),
    id: fc.option(fc.stringMatching(/^[0-9A-Za-z_-]{1,10}$/), { nil: undefined }),
    dataLines: fc.array(lineText, { minLength: 1, maxLength: 3 }),
  })
  .filter((e) => e.dataLines.join("\n") !== "");

const ending = fc.constantFrom("\n", "\r\n", "\r");

function lines(events: readonly GenEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.comment !== null) out.push(`:${e.comment}`);
    if (e.id !== undefined) out.push(`id: ${e.id}`);
    if (e.event !== undefined) out.push(`event: ${e.event}`);
    for (const d of e.dataLines) out.push(`data: ${d}`);
    out.push("");
  }
  return out;
}

/** Lines joined with the given endings (cycled). */
function serialize(ls: readonly string[], endings: readonly string[]): string {
  let text = "";
  let prev = "";
  for (const [i, l] of ls.entries()) {
    let e = endings[i % endings.length] as string;
    // CR then a blank line ending in LF reads as one CRLF: the format's rule, so avoid it.
    if (prev === "\r" && l === "" && e === "\n") e = "\r\n";
    text += l + e;
    prev = e;
  }
  return text;
}

function expected(events: readonly GenEvent[]): SseMessage[] {
  return events.map((e) => ({ event: e.event, id: e.id, data: e.dataLines.join("\n") }));
}

function cut(bytes: Uint8Array, fractions: readonly number[]): Uint8Array[] {
  const points = [...new Set(fractions.map((f) => Math.floor(f * bytes.length)))].sort(
    (a, b) => a - b,
  );
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}

function readAll(chunks: readonly Uint8Array[]): SseMessage[] {
  const got: SseMessage[] = [];
  const reader = createSseReader({ maxEventBytes: 1 << 20, onMessage: (m) => got.push(m) });
  for (const c of chunks) expect(reader.push(c)).toBeNull();
  reader.end();
  return got;
}

const chunking = fc.oneof(
  fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }),
  // Every byte on its own: each multi-byte character is split.
  fc.constant("bytes" as const),
);

describe("SSE reader: same events for any stream, endings and chunking (property)", () => {
  it("in memory", () => {
    fc.assert(
      fc.property(
        fc.array(genEvent, { minLength: 1, maxLength: 12 }),
        fc.array(ending, { minLength: 1, maxLength: 8 }),
        chunking,
        (events, endings, how) => {
          const bytes = new TextEncoder().encode(serialize(lines(events), endings));
          const chunks =
            how === "bytes"
              ? Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))
              : cut(bytes, how);
          expect(readAll(chunks)).toEqual(expected(events));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("subscription over loopback: same events whatever the writes (property)", () => {
  const unpaced = new RequestBudget({ defaults: { limit: 1_000_000, burst: 1_000_000 } });
  let server: Server;
  let baseUrl = "";
  let agent: Agent;
  /** What the next stream request is answered with; a reconnect gets 204 (stream over). */
  let script: Uint8Array[] = [];
  let served = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (served++ > 0 || req.headers["last-event-id"] !== undefined) {
        res.writeHead(204).end();
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      const chunks = script;
      let i = 0;
      // One write per chunk, each on its own turn of the loop, so the client sees many reads.
      const next = () => {
        if (i >= chunks.length) {
          res.end();
          return;
        }
        res.write(chunks[i++] as Uint8Array);
        setImmediate(next);
      };
      next();
    });
    server.keepAliveTimeout = 100;
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    agent = new Agent({ keepAliveTimeout: 100 });
  });
  afterAll(async () => {
    await agent.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("delivers exactly the decoded events", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(genEvent, { minLength: 1, maxLength: 8 }),
        fc.array(ending, { minLength: 1, maxLength: 4 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
        async (events, endings, fractions) => {
          const bytes = new TextEncoder().encode(serialize(lines(events), endings));
          script = cut(bytes, fractions);
          served = 0;
          const got: SessionEvent[] = [];
          const sub = subscribeToSession({
            config: { baseUrl, apiKey: "property-test-key", dispatcher: agent },
            sessionId: "ses_prop",
            onEvent: (ev) => got.push(ev),
            backoffBaseMs: 1,
            // Eighty openings against a server that announces no limit: not about pacing.
            budget: unpaced,
          });
          const end = await sub.done;
          expect(end).toMatchObject({ state: "stopped", error: null });
          expect(got).toEqual(expected(events).map((m) => decodeEvent(m.event, m.data, m.id)));
        },
      ),
      { numRuns: 40 },
    );
  });
});
