import { describe, expect, it } from "vitest";
import { SessionSchema } from "../../src/protocol/index.js";
import { admitSession } from "../../src/store/admitSession.js";
import { fleetColumns, usageText } from "../../src/ui/model/fleetRows.js";
import { listRowStyle } from "../../src/ui/model/geometry.js";
import { destroyedNote, listRowMeta } from "../../src/ui/model/listRow.js";
import { detailEntries, detailLines } from "../../src/ui/model/sessionDetail.js";

/**
 * The documented record fields where they help: the list row and the fleet's columns as the
 * width allows, the `i` detail (every field, the routes in use), the note about what the
 * service hides.
 */

const NOW = Date.parse("2030-01-01T12:00:00Z");

const full = admitSession(
  SessionSchema.parse({
    id: "ses_full",
    name: "Full record",
    state: "active",
    agent: "codex",
    visibility: "team",
    sandbox_url: "https://sbx.example/ses_full",
    github_repo: "acme/web",
    repo: "demo/app",
    branch: "main",
    last_prompt: {
      status: "completed",
      started_at: "2030-01-01T11:50:00Z",
      completed_at: "2030-01-01T11:57:00Z",
      prompt: "fix it",
    },
    last_activity_at: "2030-01-01T11:57:00Z",
    error_message: null,
    paused_at: null,
    prompt_count: "12",
    total_cost_usd: 0.4213,
    preview_url: "https://preview.example/ses_full",
    template: "Node.js 20",
    agent_status: "working",
    user_id: "usr_1",
    created_at: "2030-01-01T09:00:00Z",
    updated_at: "2030-01-01T11:57:00Z",
    custom: { nested: true },
  }),
);
const bare = admitSession(SessionSchema.parse({ id: "ses_bare", state: "paused", title: "t" }));
const odd = admitSession(
  SessionSchema.parse({
    id: "ses_odd",
    github_repo: 5,
    last_activity_at: "not a time",
    prompt_count: "lots",
    total_cost_usd: "free",
    last_prompt: ["done"],
  }),
);

describe("the session list's row, as the width allows", () => {
  it("at 80 columns: the last activity after the name, nothing else", () => {
    const inner = 78;
    expect(listRowStyle(inner)).toBe("ids");
    expect(listRowMeta(full, listRowStyle(inner), inner, NOW)).toBe("3m ago");
    expect(listRowMeta(bare, listRowStyle(inner), inner, NOW)).toBe("");
    expect(listRowMeta(odd, listRowStyle(inner), inner, NOW)).toBe("");
  });

  it("at 160 columns: repository and branch, activity, prompts, cost, visibility, sandbox", () => {
    const inner = 158;
    expect(listRowMeta(full, listRowStyle(inner), inner, NOW)).toBe(
      "acme/web @ main · 3m ago · 12 prompts · $0.42 · team · https://sbx.example/ses_full",
    );
    // Between 100 and 120: no prompts or cost.
    expect(listRowMeta(full, "wide", 105, NOW)).toBe("acme/web @ main · 3m ago · team");
    // Fields of the wrong type are left out, not shown as garbage.
    expect(listRowMeta(odd, "wide", inner, NOW)).toBe("");
    // Beside panes (compact), nothing after the name.
    expect(listRowMeta(full, "compact", 40, NOW)).toBe("");
  });

  it("says what the service hides in the longest words that fit, or nothing", () => {
    const hiding = { shown: false, hidden: 2, turned: 0 } as const;
    expect(destroyedNote(hiding, 80)).toBe("destroyed and error sessions hidden (D shows)");
    expect(destroyedNote({ shown: true }, 80)).toBe("destroyed and error sessions shown (D hides)");
    expect(destroyedNote(hiding, 30)).toBe("destroyed/error hidden (D)");
    expect(destroyedNote(hiding, 18)).toBe("D: show destroyed");
    expect(destroyedNote(hiding, 5)).toBeNull();
    // A row that turned error since the list was read is shown: the note never denies it.
    const turned = { shown: false, hidden: 0, turned: 1 } as const;
    expect(destroyedNote(turned, 120)).toBe(
      "destroyed and error sessions hidden, but 1 that changed since the list was read is shown (D shows all)",
    );
    expect(destroyedNote(turned, 60)).toBe("destroyed/error hidden, 1 shown till refresh (D)");
    // A state filter picks the rows: the toggle changes nothing, nothing is said.
    expect(destroyedNote(null, 80)).toBeNull();
  });
});

describe("the fleet's columns", () => {
  it("at 80 columns: none of the record's new columns", () => {
    const cols = fleetColumns(78);
    expect(cols.repo).toBe(0);
    expect(cols.usage).toBe(0);
    expect(cols.agent).toBe(0);
  });

  it("at 160 columns: agent, repository, and prompts with their cost", () => {
    const cols = fleetColumns(158);
    expect(cols.agent).toBeGreaterThan(0);
    expect(cols.repo).toBeGreaterThan(0);
    expect(cols.usage).toBeGreaterThan(0);
    expect(cols.overflows).toBe(false);
    expect(usageText(full)).toBe("12 · $0.42");
    expect(usageText(bare)).toBe("");
    expect(usageText(odd)).toBe("");
  });
});

describe("the i detail", () => {
  it("lists every field present, documented first, last_prompt spread, nulls of optional fields left out", () => {
    const keys = detailEntries(full).map(([k]) => k);
    expect(keys.slice(0, 4)).toEqual(["id", "name", "state", "agent_status"]);
    for (const k of [
      "github_repo",
      "repo",
      "last_activity_at",
      "last_prompt.status",
      "last_prompt.started_at",
      "last_prompt.completed_at",
      "last_prompt.prompt",
      "prompt_count",
      "total_cost_usd",
      "preview_url",
      "template",
      "custom",
    ]) {
      expect(keys, k).toContain(k);
    }
    expect(keys).not.toContain("error_message");
    expect(keys).not.toContain("paused_at");
    expect(keys).not.toContain("last_prompt");
    // The unknown field comes after every documented one.
    expect(keys.at(-1)).toBe("custom");
  });

  it("shows times with their age, the cost in dollars, wrong types as they came; then the routes", () => {
    const routes = {
      describe: () => ({
        sessions: "/api/cloud/sessions (answered in this run)",
        events: "/api/cloud/sessions/{id}/events (not tried yet)",
        codeHosting: "/api/cloud/github-app/installations (remembered from an earlier run)",
      }),
    };
    const lines = detailLines(full, routes, NOW);
    const value = (k: string) => lines.find((l) => l.key === k)?.value;
    expect(value("last_activity_at")).toBe("2030-01-01T11:57:00Z (3m ago)");
    expect(value("last_prompt.status")).toBe("completed");
    expect(value("total_cost_usd")).toBe("0.4213 ($0.42)");
    expect(value("prompt_count")).toBe("12");
    expect(value("sessions at")).toBe("/api/cloud/sessions (answered in this run)");
    expect(value("events at")).toBe("/api/cloud/sessions/{id}/events (not tried yet)");
    expect(value("code hosting at")).toBe(
      "/api/cloud/github-app/installations (remembered from an earlier run)",
    );
    expect(lines.find((l) => l.kind === "heading")?.key).toBe("API routes in use");

    const oddLines = detailLines(odd, null, NOW);
    const oddValue = (k: string) => oddLines.find((l) => l.key === k)?.value;
    expect(oddValue("github_repo")).toBe("5");
    expect(oddValue("last_activity_at")).toBe("not a time");
    expect(oddValue("last_prompt")).toBe('["done"]');
    expect(oddLines.at(-1)?.value).toBe("none: a recording plays, no service");
  });
});
