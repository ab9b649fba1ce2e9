import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { BuildOptions } from "../../src/cli/tui/buildServices.js";
import { identityRoutes } from "../helpers/documentedService.js";
import {
  ANNOUNCED_LIMITS,
  json,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";
import { closeAfterTest } from "../helpers/stopAfterTest.js";
import { mountOnService, type UiHarness, unmountReference, waitForContent } from "../helpers/ui.js";

/**
 * The session list at full width lines its columns up whatever shape the ids have: a service
 * may hand out UUIDs and `ses_…` ids side by side (a scripted service following the real
 * one's docs, through the production wiring).
 */

const KEY = "sk_test_cols_0123456789abcdef0123";
const SCOPES = ["sessions:read", "sessions:write", "sessions:prompt"];
const record = (id: string, name: string, state: string) => ({
  id,
  name,
  state,
  agent: "claude-code",
  github_repo: "acme/api",
  created_at: "2026-04-15T10:00:00Z",
  updated_at: "2026-04-15T10:00:00Z",
});
const RECORDS = [
  record("0f8e2d7c-5b1a-4c3e-9d2f-7a6b5c4d3e2f", "billing export", "running"),
  record("ses_a1", "docs site", "paused"),
  record("ses_7Hq2LmZx9", "landing page", "running"),
];

afterEach(unmountReference);

async function service(list = true): Promise<ScriptedServer> {
  const s = closeAfterTest(await startScriptedServer());
  const routes: Record<string, unknown> = {
    ...identityRoutes(SCOPES),
    ...(list
      ? { "GET /api/sessions": { sessions: RECORDS, total: RECORDS.length, has_more: false } }
      : {}),
  };
  s.fallback((req: IncomingMessage, res: ServerResponse, body: string, n: number) => {
    const key = `${req.method} ${(req.url ?? "").split("?")[0]}`;
    if (key in routes) return json(200, routes[key], ANNOUNCED_LIMITS)(req, res, body, n);
    return json(404, { detail: "Not Found" }, ANNOUNCED_LIMITS)(req, res, body, n);
  });
  return s;
}

/** The UI wired as the `ui` command wires it, its identity and list loaded, at 160×30. */
async function mountOn(s: ScriptedServer, services: BuildOptions): Promise<UiHarness> {
  return (await mountOnService(s, KEY, { columns: 160, rows: 30 }, { services })).h;
}

describe("the session list at 160 columns", () => {
  it("keeps state, agent and name in one column each with a UUID and ses_… ids mixed", async () => {
    // The client's own retries.
    const h = await mountOn(await service(), { tuning: {} });
    const frame = await waitForContent(h, "landing page");
    const rows = RECORDS.map((r) => {
      const row = frame.split("\n").find((l) => l.includes(r.id));
      if (row === undefined) throw new Error(`no row for ${r.id}:\n${frame}`);
      return row;
    });
    const at = (text: string) =>
      rows.map((row, i) => row.indexOf(text.replace("$name", RECORDS[i]?.name as string)));
    for (const column of ["claude-code", "$name"]) {
      const starts = at(column);
      expect(
        starts.every((x) => x > 0),
        `${column} in every row`,
      ).toBe(true);
      expect(new Set(starts).size, `${column} starts in one column:\n${rows.join("\n")}`).toBe(1);
    }
    // The state's word too (its glyph differs by state).
    const states = rows.map((row, i) => row.indexOf(RECORDS[i]?.state as string));
    expect(new Set(states).size, rows.join("\n")).toBe(1);
  });
});

describe("a list that cannot be read", () => {
  it("says why where the sessions would be, not 'no sessions'", async () => {
    // A base URL whose sessions route is not there (a wrong path): 404 on the list.
    const h = await mountOn(await service(false), {
      tuning: { maxAttempts: 1, backoffBaseMs: 20 },
    });
    const frame = await waitForContent(h, "could not list sessions:");
    expect(frame).not.toContain("no sessions");
  });
});
