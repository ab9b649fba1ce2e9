import { describe, expect, it } from "vitest";
import {
  agentStatus,
  createdAt,
  defaultCloneUrl,
  errorMessageOf,
  formatUsd,
  lastActivityAt,
  lastPrompt,
  ownerRepoOf,
  parseSessionPage,
  pausedAt,
  promptCount,
  SessionSchema,
  sessionRepo,
  totalCostUsd,
  updatedAt,
} from "../../src/protocol/index.js";
import { recordCauses } from "../../src/store/attention/reasons.js";
import { repoOf } from "../../src/store/fleet/overlaps.js";

/**
 * The documented optional fields of a session record: none required, none able to reject a
 * record by its type, each read leniently in one place (src/protocol/sessionRecord.ts).
 */

const FULL = {
  id: "ses_full",
  name: "Full record",
  state: "active",
  github_repo: "acme/web",
  repo: "other/thing",
  last_prompt: {
    status: "completed",
    started_at: "2030-01-01T10:00:00Z",
    completed_at: "2030-01-01T10:05:00Z",
    prompt: "fix it",
  },
  last_activity_at: "2030-01-01T10:05:00Z",
  error_message: null,
  paused_at: null,
  prompt_count: 12,
  total_cost_usd: 0.4213,
  preview_url: "https://preview.example/ses_full",
  template: "Node.js 20",
  agent_status: "awaiting_approval",
};

describe("the documented optional record fields", () => {
  it("are read when present", () => {
    const s = SessionSchema.parse(FULL);
    expect(sessionRepo(s)).toBe("acme/web");
    expect(lastActivityAt(s)).toBe(Date.parse("2030-01-01T10:05:00Z"));
    expect(lastPrompt(s)).toEqual({
      status: "completed",
      startedAt: Date.parse("2030-01-01T10:00:00Z"),
      completedAt: Date.parse("2030-01-01T10:05:00Z"),
    });
    expect(promptCount(s)).toBe(12);
    expect(totalCostUsd(s)).toBe(0.4213);
    expect(agentStatus(s)).toBe("awaiting_approval");
    expect(errorMessageOf(s)).toBeNull();
    expect(pausedAt(s)).toBeNull();
  });

  it("are all optional: a record with none of them parses, and every reader says null", () => {
    const s = SessionSchema.parse({ id: "ses_bare" });
    expect(s.session_id).toBe("ses_bare");
    for (const read of [
      sessionRepo,
      lastActivityAt,
      lastPrompt,
      promptCount,
      totalCostUsd,
      agentStatus,
      createdAt,
      updatedAt,
      errorMessageOf,
      pausedAt,
    ]) {
      expect(read(s)).toBeNull();
    }
  });

  it("never reject a record by their type, and keep what was sent", () => {
    const odd = {
      id: "ses_odd",
      github_repo: 42,
      last_prompt: "done",
      last_activity_at: { when: "now" },
      error_message: ["boom"],
      paused_at: true,
      prompt_count: "many",
      total_cost_usd: -3,
      preview_url: 7,
      template: [],
      agent_status: 1,
    };
    const parsed = SessionSchema.safeParse(odd);
    expect(parsed.success).toBe(true);
    const s = parsed.success ? parsed.data : (odd as never);
    // Kept as sent (`--json` passes the record through)...
    expect(s).toMatchObject(odd);
    // ...and read as absent.
    expect(sessionRepo(s)).toBeNull();
    expect(lastPrompt(s)).toBeNull();
    expect(lastActivityAt(s)).toBeNull();
    expect(errorMessageOf(s)).toBeNull();
    expect(pausedAt(s)).toBeNull();
    expect(promptCount(s)).toBeNull();
    expect(totalCostUsd(s)).toBeNull();
    expect(agentStatus(s)).toBeNull();
    // A list of such records is a list, not an error.
    expect(parseSessionPage({ sessions: [odd, FULL] }).sessions).toHaveLength(2);
  });

  it("read numbers sent as strings and times sent as epoch seconds or milliseconds", () => {
    const s = SessionSchema.parse({
      id: "ses_str",
      prompt_count: "7",
      total_cost_usd: " 1.5 ",
      last_activity_at: 1_893_456_000,
      paused_at: "1893456000000",
      last_prompt: { status: "running", started_at: 1_893_456_000_000 },
    });
    expect(promptCount(s)).toBe(7);
    expect(totalCostUsd(s)).toBe(1.5);
    expect(lastActivityAt(s)).toBe(1_893_456_000_000);
    expect(pausedAt(s)).toBe(1_893_456_000_000);
    expect(lastPrompt(s)).toEqual({
      status: "running",
      startedAt: 1_893_456_000_000,
      completedAt: null,
    });
    // Not a whole number of prompts: no count.
    expect(promptCount({ prompt_count: 2.5 })).toBeNull();
  });

  it("the attention queue dates a cause by the same reading of the record's times as the list", () => {
    // updated_at as epoch seconds, paused_at as a numeric string of ms, completed_at without a
    // zone: each one moment, whichever view reads it.
    const at = Date.parse("2030-01-01T10:05:00Z");
    const rec = SessionSchema.parse({
      id: "ses_epoch",
      state: "paused",
      created_at: "2030-01-01T09:00:00",
      updated_at: at / 1000,
      paused_at: String(at),
      last_prompt: { status: "error", completed_at: "2030-01-01T10:05:00" },
    });
    expect(updatedAt(rec)).toBe(at);
    expect(createdAt(rec)).toBe(Date.parse("2030-01-01T09:00:00Z"));
    const causes = recordCauses(rec, null);
    expect(causes.map((c) => [c.reason, c.since, c.sinceFrom])).toEqual([
      ["failed", at, "record"],
      ["paused", at, "record"],
    ]);
  });

  it("the repository: github_repo first, then repo; owner/repo however it is written", () => {
    expect(sessionRepo({ repo: "demo/app" })).toBe("demo/app");
    expect(sessionRepo({ github_repo: "", repo: "demo/app" })).toBe("demo/app");
    expect(sessionRepo({ github_repo: "acme/web", repo: "demo/app" })).toBe("acme/web");
    for (const form of [
      "acme/web",
      "acme/web.git",
      "https://github.com/acme/web",
      "https://github.com/acme/web.git/",
      "git@github.com:acme/web.git",
      "ssh://git@github.com/acme/web",
    ]) {
      expect(ownerRepoOf(form), form).toBe("acme/web");
    }
    // The overlap check compares the documented field with the other spellings.
    const a = SessionSchema.parse({ id: "a", github_repo: "Acme/Web" });
    const b = SessionSchema.parse({ id: "b", repo_url: "https://github.com/acme/web.git" });
    expect(repoOf(a)).toBe("acme/web");
    expect(repoOf(b)).toBe(repoOf(a));
  });

  it("the clone dialog's default: github_repo as its GitHub URL, nothing without it", () => {
    expect(defaultCloneUrl({ github_repo: "acme/web" })).toBe("https://github.com/acme/web.git");
    expect(defaultCloneUrl({ github_repo: "https://git.example/acme/web.git" })).toBe(
      "https://git.example/acme/web.git",
    );
    expect(defaultCloneUrl({ repo: "demo/app" })).toBe("");
    expect(defaultCloneUrl(undefined)).toBe("");
  });

  it("dollars as a person reads them", () => {
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(0.4213)).toBe("$0.42");
    expect(formatUsd(0.004)).toBe("<$0.01");
    expect(formatUsd(12.3)).toBe("$12.30");
    expect(formatUsd(1204.4)).toBe("$1,204");
  });
});
