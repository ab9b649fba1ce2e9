import { describe, expect, it } from "vitest";
import {
  ApiKeyInfoSchema,
  decodeEvent,
  effectiveScopes,
  errorMessage,
  expandScopes,
  narrowedScopes,
  parseSessionPage,
  requiredScopeOf,
} from "../../src/protocol/index.js";
import { payloadText } from "../../src/text/payloadText.js";

describe("decodeEvent", () => {
  it("types the five events and keeps unknown fields", () => {
    const ev = decodeEvent("prompt_progress", '{"type":"text","content":"Hi","extra":1}', "7");
    expect(ev).toEqual({
      kind: "prompt_progress",
      id: "7",
      data: { type: "text", content: "Hi", extra: 1 },
    });
    expect(decodeEvent("file_changed", '{"path":"a.ts","action":"created"}', "8").kind).toBe(
      "file_changed",
    );
    expect(decodeEvent("state_changed", '{"state":"paused"}', "9")).toMatchObject({
      kind: "state_changed",
      data: { state: "paused" },
    });
    expect(decodeEvent("heartbeat", '{"timestamp":"2026-01-01T00:00:00Z"}', undefined)).toEqual({
      kind: "heartbeat",
      id: null,
      data: { timestamp: "2026-01-01T00:00:00Z" },
    });
  });

  it("accepts any object as process_output and renders text, line, or JSON", () => {
    const a = decodeEvent("process_output", '{"text":"hello\\n","stream":"stdout"}', "1");
    const b = decodeEvent("process_output", '{"line":"one line"}', "2");
    const c = decodeEvent("process_output", '{"pid":4,"exit":0}', "3");
    if (a.kind !== "process_output" || b.kind !== "process_output" || c.kind !== "process_output")
      throw new Error("expected process_output");
    expect(payloadText(a.data)).toEqual({ text: "hello\n", compact: false, stream: "stdout" });
    expect(payloadText(b.data).text).toBe("one line");
    expect(payloadText(c.data)).toEqual({
      text: '{"pid":4,"exit":0}',
      compact: true,
      stream: undefined,
    });
    // Fields of other types are no reason to refuse the item: the shape is open.
    expect(decodeEvent("process_output", '{"stream":2,"text":null}', "4").kind).toBe(
      "process_output",
    );
  });

  it("turns bad JSON and wrong types into visible malformed items, never throws", () => {
    const bad = decodeEvent("prompt_progress", "{not json", "3");
    expect(bad).toMatchObject({ kind: "malformed", event: "prompt_progress", raw: "{not json" });
    const wrongType = decodeEvent("file_changed", '{"path":42,"action":"created"}', "4");
    expect(wrongType).toMatchObject({ kind: "malformed" });
    // The user reads which field is wrong and what was expected, in words.
    if (wrongType.kind === "malformed") {
      expect(wrongType.error).toBe(
        "file_changed: path: Invalid input: expected string, received number",
      );
    }
    const notObject = decodeEvent("heartbeat", "[1,2]", undefined);
    expect(notObject.kind).toBe("malformed");
    const long = decodeEvent("prompt_progress", `x${"y".repeat(10_000)}`, "5");
    if (long.kind !== "malformed") throw new Error("expected malformed");
    expect(long.raw.length).toBeLessThan(2100);
  });

  it("delivers an unknown event name as such", () => {
    expect(decodeEvent("tool_call", '{"name":"grep"}', "6")).toEqual({
      kind: "unknown",
      event: "tool_call",
      id: "6",
      data: { name: "grep" },
    });
  });
});

describe("parseSessionPage", () => {
  const s = (id: string) => ({ session_id: id, state: "active" });
  it("accepts a bare array", () => {
    expect(parseSessionPage([s("ses_a")])).toMatchObject({
      sessions: [{ session_id: "ses_a" }],
      next: null,
      total: null,
    });
  });
  it("accepts sessions/items/data with next_cursor/next/cursor", () => {
    expect(parseSessionPage({ sessions: [s("ses_a")], next_cursor: "c1" }).next).toEqual({
      cursor: "c1",
    });
    expect(parseSessionPage({ items: [s("ses_a")], next: "c2" }).next).toEqual({ cursor: "c2" });
    expect(parseSessionPage({ data: [s("ses_a")], cursor: "c3" }).next).toEqual({ cursor: "c3" });
  });
  it("offset paging: has_more and total give the next offset from where this page began", () => {
    const page = { sessions: [s("ses_a"), s("ses_b")], total: 45, has_more: true };
    expect(parseSessionPage(page, { offset: 20 })).toMatchObject({
      total: 45,
      hasMore: true,
      next: { offset: 22 },
    });
    // total alone says more remain; at the end there is no next page.
    expect(parseSessionPage({ sessions: [s("ses_a")], total: 3 }).next).toEqual({ offset: 1 });
    expect(parseSessionPage({ sessions: [s("ses_a")], total: 3 }, { offset: 2 }).next).toBeNull();
    // has_more without anything on the page cannot move on: said, but no next.
    expect(parseSessionPage({ sessions: [], has_more: true })).toMatchObject({
      hasMore: true,
      next: null,
    });
  });
  it("honours has_more: false and keeps unknown fields", () => {
    const page = parseSessionPage({
      data: [{ id: "ses_b", colour: "blue" }],
      cursor: "c",
      has_more: false,
    });
    expect(page.next).toBeNull();
    expect(page.sessions[0]).toMatchObject({ session_id: "ses_b", colour: "blue" });
  });
  it("rejects a shape with no list, and a record with no id", () => {
    expect(() => parseSessionPage({ total: 3 })).toThrow(/sessions, items or data/);
    expect(() => parseSessionPage([{ state: "active" }])).toThrow();
  });
});

describe("scopes", () => {
  it("expands legacy names", () => {
    expect(expandScopes(["read"])).toEqual(["sessions:read", "integrations:read"]);
  });
  it("limits effective scopes by the role ceiling; personal keys have none", () => {
    const all = ["sessions:read", "sessions:terminal", "integrations:write"];
    expect(effectiveScopes(all, "member")).toEqual(["sessions:read"]);
    expect(effectiveScopes(all, "owner")).toEqual(all);
    expect(effectiveScopes(all, null)).toEqual(all);
    expect(narrowedScopes(all, effectiveScopes(all, "member"))).toEqual([
      "sessions:terminal",
      "integrations:write",
    ]);
  });
});

describe("resources and errors", () => {
  it("parses API key info leniently: unknown kept, optional nulls default, wrong type fails", () => {
    const base = {
      valid: true,
      key_id: "k",
      name: "n",
      user_id: "u",
      scopes: [],
      effective_scopes: [],
      new_field: "kept",
    };
    const parsed = ApiKeyInfoSchema.parse(base);
    expect(parsed.organization_id).toBeNull();
    expect(parsed.expires_at).toBeNull();
    expect(parsed).toHaveProperty("new_field", "kept");
    expect(ApiKeyInfoSchema.safeParse({ ...base, scopes: "all" }).success).toBe(false);
  });
  it("reads both error body shapes", () => {
    expect(errorMessage({ detail: "Invalid API key" })).toBe("Invalid API key");
    expect(errorMessage({ detail: { error: "API key expired" } })).toBe("API key expired");
    expect(errorMessage("nope")).toBeNull();
    // The documented structured shape: one line with the code and the field.
    expect(
      errorMessage({
        detail: { error: "validation_error", message: "Field 'agent' is required", field: "agent" },
      }),
    ).toBe("Field 'agent' is required (validation_error)");
    expect(errorMessage({ detail: { error: "conflict", message: "Busy", field: "state" } })).toBe(
      "Busy (conflict, field state)",
    );
    expect(errorMessage({ detail: [{ loc: ["body", "repo_url"], msg: "field required" }] })).toBe(
      "repo_url: field required",
    );
    expect(requiredScopeOf({ detail: "Insufficient scope: requires sessions:write" })).toBe(
      "sessions:write",
    );
    expect(requiredScopeOf({ detail: { error: "forbidden", field: "sessions:prompt" } })).toBe(
      "sessions:prompt",
    );
    expect(requiredScopeOf({ detail: "Forbidden" })).toBeNull();
    expect(requiredScopeOf({ detail: "x", required_scope: "sessions:write" })).toBe(
      "sessions:write",
    );
  });
});
