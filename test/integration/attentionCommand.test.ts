import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { ndjson, runCli, serviceEnv, tempConfigHome } from "../helpers/cli.js";
import { documentedFleet } from "../helpers/documentedService.js";
import { closeAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * `agent-sessions attention` (the built binary): what needs you over every page of the list,
 * on a server that follows the documented shapes (pages of 20, `agent_status`, `last_prompt`,
 * `paused_at`, the approvals list) and announces the real limits (100/min, burst 20); then
 * `--watch` against the reference service.
 */

const cfg = tempConfigHome();
const KEY = "sk_test_0123456789abcdef0123456789";
let ref: ReferenceServer;

beforeAll(async () => {
  ref = await startServer({ seed: 42, paceMs: 0, heartbeatMs: 500, sessionCount: 4 });
});
afterAll(async () => {
  await ref.close();
  cfg.cleanup();
});
afterEach(stopStarted);

const DAY = 86_400_000;
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const LONG_AGO = iso(NOW - 23 * DAY);

/** 45 sessions; the ones that need you are all on the third page. */
function fleet(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 1; i <= 45; i++) {
    out.push({
      id: `ses_${String(i).padStart(2, "0")}`,
      name: `Task ${i}`,
      state: "running",
      agent_status: "working",
      updated_at: iso(NOW - i * 60_000),
      last_prompt: { status: "running", started_at: iso(NOW - i * 60_000) },
    });
  }
  Object.assign(out[40] as object, {
    name: "Ship the landing page",
    agent_status: "awaiting_approval",
    updated_at: iso(NOW - 2 * DAY),
  });
  Object.assign(out[41] as object, {
    name: "Fix flaky CI",
    agent_status: "idle",
    last_prompt: { status: "error", started_at: LONG_AGO, completed_at: LONG_AGO },
    error_message: "npm test exited 1",
  });
  Object.assign(out[42] as object, {
    name: "Idle one",
    state: "paused",
    agent_status: "idle",
    last_prompt: { status: "completed", completed_at: iso(NOW - 3 * DAY) },
    paused_at: iso(NOW - 3 * DAY + 20 * 60_000),
  });
  return out;
}

const APPROVAL = {
  id: "ap_7c2d",
  session_id: "ses_41",
  kind: "deploy",
  message: "Deploy the updated landing page to production?",
  required_role: "admin",
  required_team_id: null,
  status: "pending",
  requested_by: "sandbox",
  created_at: iso(NOW - 40 * 60_000),
  resolved_by: null,
  resolved_at: null,
  resolution_note: null,
};

/** A documented server (documentedFleet) of fleet(), ses_41 awaiting APPROVAL. */
async function documentedServer(opts: { repeatThirdPage?: boolean; approval?: object } = {}) {
  return closeAfterTest(
    await documentedFleet({
      sessions: fleet(),
      approvals: { ses_41: [{ ...APPROVAL, ...opts.approval }] },
      ...(opts.repeatThirdPage ? { offset: (asked: number) => (asked >= 40 ? 20 : asked) } : {}),
    }),
  );
}

const env = (baseUrl: string, key = KEY, extra: Record<string, string> = {}) =>
  serviceEnv(cfg.dir, baseUrl, key, extra);

describe("agent-sessions attention", () => {
  it("lists what needs you on page 3 of 45 sessions: reason, since from the record, the approval's message", async () => {
    const s = await documentedServer();
    const r = await runCli(["attention"], { env: env(s.url) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^SESSION\s+NAME\s+REASON\s+SINCE\s+DETAIL$/);
    // Newest first by the record's own time for each cause.
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual([
      ["ses_41", "Ship the landing page", "awaiting approval"],
      ["ses_43", "Idle one", "paused"],
      ["ses_42", "Fix flaky CI", "failed"],
    ]);
    const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
    expect(lines[1]).toMatch(
      new RegExp(
        `${stamp(NOW - 40 * 60_000)} \\(40m ago\\) +Deploy the updated landing page to production\\?$`,
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(`${stamp(NOW - 23 * DAY)} \\(23d ago\\) +npm test exited 1$`),
    );
    // Three pages and one approvals read, nothing else.
    const paths = s.seen.map((x) => x.url.replace(/\?.*/, ""));
    expect(paths.filter((p) => p === "/api/sessions")).toHaveLength(3);
    expect(paths.filter((p) => p.endsWith("/approvals"))).toEqual([
      "/api/sessions/ses_41/approvals",
    ]);
  });

  it("--json: one document with each item's reason, time and approval", async () => {
    const s = await documentedServer();
    const r = await runCli(["attention", "--json"], { env: env(s.url) });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { items: Record<string, unknown>[]; partial: null };
    expect(doc.partial).toBeNull();
    expect(doc.items.map((i) => [i.session_id, i.reason, i.notify])).toEqual([
      ["ses_41", "approval", true],
      ["ses_43", "paused", false],
      ["ses_42", "failed", true],
    ]);
    expect(doc.items[0]).toMatchObject({
      name: "Ship the landing page",
      message: "awaiting approval: Deploy the updated landing page to production?",
      since: iso(NOW - 40 * 60_000).replace(/\.\d{3}Z$/, "Z"),
      since_from: "record",
      source: "approvals",
      approval: { id: "ap_7c2d", kind: "deploy", required_role: "admin" },
    });
    expect(doc.items[2]).toMatchObject({
      message: "failed: npm test exited 1",
      since_from: "record",
    });
  });

  it("says the queue is partial, and why, when the list cannot be read whole (exit 7)", async () => {
    const s = await documentedServer({ repeatThirdPage: true });
    const r = await runCli(["attention", "--json"], { env: env(s.url) });
    expect(r.code).toBe(7);
    expect(r.stderr).toBe("warning: the queue is partial: the service sent the same page again\n");
    expect((JSON.parse(r.stdout) as { partial: string }).partial).toBe(
      "the service sent the same page again",
    );
  });

  it("an approval's text is made inert and never shows the key", async () => {
    const s = await documentedServer({
      approval: { message: `Deploy?\u001b]0;pwned\u0007 key ${KEY}`, kind: `deploy\u202e` },
    });
    for (const args of [["attention"], ["attention", "--json"]]) {
      const r = await runCli(args, { env: env(s.url) });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Deploy?");
      expect(r.stdout).not.toContain(KEY);
      expect(r.stdout).not.toMatch(/[\u0007\u001b\u202e]/);
    }
  });

  it("AGENT_SESSIONS_ATTENTION with an unknown reason warns and keeps the defaults", async () => {
    const s = await documentedServer();
    const r = await runCli(["attention", "--json"], {
      env: env(s.url, KEY, { AGENT_SESSIONS_ATTENTION: "approval,wolf" }),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: ignoring AGENT_SESSIONS_ATTENTION="approval,wolf": unknown reason "wolf"',
    );
  });
});

describe("agent-sessions attention --watch", () => {
  function whenWatching(args: string[], then: () => void) {
    return runCli(args, {
      env: env(ref.url, ref.key("owner"), { AGENT_SESSIONS_REFRESH_MS: "1000" }),
      timeoutMs: 20_000,
      onSpawn: (child) => {
        let said = "";
        child.stderr?.on("data", (d: Buffer | string) => {
          said += d.toString();
          if (said.includes("for attention")) {
            said = "";
            then();
          }
        });
      },
    });
  }

  it("prints what waits, then arrivals and departures as JSON, one object each", async () => {
    const [, , c, d] = ref.sessionIds() as [string, string, string, string];
    const r = await whenWatching(["attention", "--watch", "--json", "--max-events", "2"], () => {
      ref.setState(d, "error");
      setTimeout(() => ref.setState(d, "active"), 2500);
    });
    expect(r.code).toBe(0);
    const lines = ndjson(r.stdout);
    // The seeded service starts the third session paused: it waits already.
    expect(lines[0]).toMatchObject({
      event: "arrived",
      session_id: c,
      reason: "paused",
      notify: false,
    });
    expect(lines.slice(1).map((l) => [l.event, l.session_id, l.reason])).toEqual([
      ["arrived", d, "failed"],
      ["left", d, "failed"],
    ]);
  });

  it("watch --attention is the same, in lines", async () => {
    const b = ref.sessionIds()[1] as string;
    const r = await whenWatching(["watch", "--attention", "--max-events", "1"], () =>
      ref.setState(b, "error"),
    );
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d \\+ ${b}  failed: .+  \\S`),
    );
    ref.setState(b, "active");
  });
});
