import { afterAll, afterEach, describe, expect, it } from "vitest";
import { buildServices, type ServicesHandle } from "../../src/cli/tui/buildServices.js";
import { selectVisibleSessions } from "../../src/store/sessionsStore.js";
import { runCli, serviceEnv, tempConfigHome } from "../helpers/cli.js";
import { documentedFleet } from "../helpers/documentedService.js";
import type { ScriptedServer } from "../helpers/scriptedHttpServer.js";
import { closeAfterTest, stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * The session catalogue against a server that follows the documented shapes (offset pages of
 * at most 20, `include_destroyed`, the approvals list) and announces the real limits (100 a
 * minute, burst 20): a load and a live refresh read each page exactly once, approvals are read
 * only for the session that awaits one, and the list, the fleet, the attention queue and the
 * headless `sessions` and `attention` all tell the same sessions.
 */

const cfg = tempConfigHome();
const KEY = "sk_test_catalogue_0123456789abcdef";
afterEach(stopStarted);
afterAll(() => cfg.cleanup());

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();

/** 45 sessions; on the third page one awaits approval, one failed, one was destroyed. */
function fleet(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 1; i <= 45; i++) {
    out.push({
      id: `ses_${String(i).padStart(2, "0")}`,
      name: `Task ${i}`,
      state: "running",
      agent_status: "working",
      updated_at: iso(NOW - i * 60_000),
    });
  }
  Object.assign(out[40] as object, { agent_status: "awaiting_approval" });
  Object.assign(out[41] as object, { state: "error", error_message: "npm test exited 1" });
  Object.assign(out[42] as object, { state: "destroyed" });
  return out;
}

const APPROVAL = {
  id: "ap_7c2d",
  session_id: "ses_41",
  kind: "deploy",
  message: "Deploy the landing page?",
  status: "pending",
  created_at: iso(NOW - 40 * 60_000),
};

/** Destroyed and error sessions only with include_destroyed=true, as the real service does. */
async function documentedServer(): Promise<ScriptedServer> {
  return closeAfterTest(
    await documentedFleet({
      sessions: fleet(),
      approvals: { ses_41: [APPROVAL] },
      hideDestroyed: true,
    }),
  );
}

/** The list reads the server saw, as "offset include_destroyed". */
function listReads(s: ScriptedServer): string[] {
  return s.seen
    .map((r) => new URL(r.url, "http://x"))
    .filter((u) => u.pathname === "/api/sessions")
    .map((u) => `${u.searchParams.get("offset") ?? 0} ${u.searchParams.get("include_destroyed")}`);
}

function ui(s: ScriptedServer): ServicesHandle {
  const handle = buildServices({ baseUrl: s.url, apiKey: KEY }, { tuning: { maxAttempts: 1 } });
  stopAfterTest(() => handle.dispose());
  return handle;
}

describe("the session catalogue", () => {
  it("a load and a live refresh read each page exactly once; approvals only where one waits", async () => {
    const srv = await documentedServer();
    const { services } = ui(srv);
    await services.sessions.getState().load();
    await services.attention.idle();
    // One pass: each page once, include_destroyed asked on each (no second pass for them).
    expect(listReads(srv)).toEqual(["0 true", "20 true", "40 true"]);
    const st = services.sessions.getState();
    expect(st.items).toHaveLength(45);
    expect(st.hasMore).toBe(false);
    // The one session that awaits an approval had its approvals read; no other did.
    const approvals = srv.seen.filter((r) => r.url.includes("/approvals")).map((r) => r.url);
    expect(approvals).toEqual(["/api/sessions/ses_41/approvals"]);
    // What needs you on page 3 is queued from the same records, with no further read.
    const queued = services.attention
      .getState()
      .items.map((i) => [i.sessionId, i.reason])
      .sort();
    expect(queued).toEqual([
      ["ses_41", "approval"],
      ["ses_42", "failed"],
      ["ses_43", "destroyed"],
    ]);

    const before = srv.seen.length;
    expect(await services.sessions.getState().refreshLive()).toBe(true);
    await services.attention.idle();
    expect(listReads(srv)).toEqual([
      "0 true",
      "20 true",
      "40 true",
      "0 true",
      "20 true",
      "40 true",
    ]);
    // Nothing but the three pages: the same approval is not read again for the same record.
    expect(srv.seen.length - before).toBe(3);

    // Hiding failed and destroyed sessions is a view: nothing is read for it.
    const seen = srv.seen.length;
    services.sessions.getState().setIncludeDestroyed(true);
    expect(selectVisibleSessions(services.sessions.getState())).toHaveLength(45);
    services.sessions.getState().setIncludeDestroyed(false);
    expect(selectVisibleSessions(services.sessions.getState())).toHaveLength(43);
    expect(srv.seen.length).toBe(seen);
  });

  it("the list, the fleet and the headless sessions and attention agree", async () => {
    const srv = await documentedServer();
    const { services } = ui(srv);
    await services.sessions.getState().load();
    await services.attention.idle();
    const env = serviceEnv(cfg.dir, srv.url, KEY);
    const listed = await runCli(["sessions", "--all", "--include-destroyed", "--json"], { env });
    expect(listed.code).toBe(0);
    const cliIds = (JSON.parse(listed.stdout) as { id: string }[]).map((x) => x.id).sort();
    const attention = await runCli(["attention", "--json"], { env });
    expect(attention.code).toBe(0);
    const cliQueue = (
      JSON.parse(attention.stdout) as { items: { session_id: string; reason: string }[] }
    ).items
      .map((i) => [i.session_id, i.reason])
      .sort();

    // The list and the fleet select the same view of the catalogue (D shows every session).
    services.sessions.getState().setIncludeDestroyed(true);
    const shown = selectVisibleSessions(services.sessions.getState())
      .map((x) => x.session_id)
      .sort();
    expect(shown).toEqual(cliIds);
    expect(cliIds).toHaveLength(45);
    const uiQueue = services.attention
      .getState()
      .items.map((i) => [i.sessionId, i.reason])
      .sort();
    expect(uiQueue).toEqual(cliQueue);
  });
});
