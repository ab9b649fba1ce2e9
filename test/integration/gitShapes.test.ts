import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli, serviceEnv, tempConfigHome } from "../helpers/cli.js";
import {
  ANNOUNCED_LIMITS,
  json,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";

/**
 * Git as the real service documents it: the flat answer of `/git` (success, current_branch,
 * created_branch, pr_url, pr_number, output, error) read like {operation, success, result};
 * the flat body sent there when the interface's `/git/operation` answers 404; the refusal
 * of git on a paused session said with what to do.
 */

const cfg = tempConfigHome();
let ref: ReferenceServer;
beforeAll(async () => {
  ref = await startServer({ seed: 22, paceMs: 0, sessionCount: 12 });
});
afterAll(async () => {
  await ref.close();
  cfg.cleanup();
});

const KEY = "sk_test_0123456789abcdef0123456789";
const env = (url: string, key = KEY) => serviceEnv(cfg.dir, url, key);

async function scripted(fn: (s: ScriptedServer) => void): Promise<ScriptedServer> {
  const s = await startScriptedServer();
  fn(s);
  return s;
}

const FLAT_PR = {
  success: true,
  operation: "create_branch_and_pr",
  output: "Created branch agent/86e11104 and pushed",
  current_branch: "agent/86e11104",
  default_branch: "main",
  repo_full_name: "acme/billing",
  created_branch: "agent/86e11104",
  pr_url: "https://github.com/acme/billing/pull/42",
  pr_number: 42,
};

describe("git answers of both documented shapes", () => {
  it("on 404 at /git/operation, sends the flat body to /git and reads its flat answer", async () => {
    const s = await scripted((x) =>
      x.reply(
        json(404, { detail: "Not Found" }, ANNOUNCED_LIMITS),
        json(200, FLAT_PR, ANNOUNCED_LIMITS),
      ),
    );
    try {
      const r = await runCli(
        ["git", "pr", "ses_a1", "--title", "Add /health", "--body", "B", "--base", "main"],
        { env: env(s.url) },
      );
      expect(r.code).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe(
        "opened pull request #42: Add /health https://github.com/acme/billing/pull/42 (branch agent/86e11104)",
      );
      expect(r.stdout).toContain("  Created branch agent/86e11104 and pushed");
      expect(s.seen.map((x) => x.url)).toEqual([
        "/api/sessions/ses_a1/git/operation",
        "/api/sessions/ses_a1/git",
      ]);
      expect(JSON.parse(s.seen[0]?.body ?? "")).toEqual({
        operation: "create-pr",
        args: { title: "Add /health", body: "B", base: "main" },
      });
      expect(JSON.parse(s.seen[1]?.body ?? "")).toEqual({
        operation: "create_pr",
        pr_title: "Add /health",
        pr_body: "B",
        pr_base: "main",
      });
    } finally {
      await s.close();
    }
  });

  it("reads {operation, success, result} and the flat branch fields alike", async () => {
    const s = await scripted((x) =>
      x.reply(
        json(
          200,
          { operation: "push", success: true, result: { branch: "dev", sha: "abcdef1234567890" } },
          ANNOUNCED_LIMITS,
        ),
        json(
          200,
          { success: true, operation: "create_branch", created_branch: "feat/x" },
          ANNOUNCED_LIMITS,
        ),
        json(
          200,
          { success: true, operation: "push", current_branch: "feat/x", output: "ok" },
          ANNOUNCED_LIMITS,
        ),
      ),
    );
    try {
      const push = await runCli(["git", "push", "ses_a1"], { env: env(s.url) });
      expect(push.stdout).toContain("pushed dev at abcdef123456");
      const branch = await runCli(["git", "branch", "ses_a1", "feat/x"], { env: env(s.url) });
      expect(branch.stdout).toContain("created branch feat/x");
      const flatPush = await runCli(["git", "push", "ses_a1"], { env: env(s.url) });
      expect(flatPush.stdout).toContain("pushed feat/x");
    } finally {
      await s.close();
    }
  });

  it("a flat success: false fails with its error (exit 1)", async () => {
    const answer = { success: false, operation: "push", output: null, error: "No changes to push" };
    // The git route answers; the session's record is not served (so no repository is named).
    const s = await scripted((x) =>
      x.fallback((req, res, body, n) =>
        (req.url?.endsWith("/git/operation")
          ? json(200, answer, ANNOUNCED_LIMITS)
          : json(404, { detail: "Not Found" }, ANNOUNCED_LIMITS))(req, res, body, n),
      ),
    );
    try {
      const r = await runCli(["git", "push", "ses_a1"], { env: env(s.url) });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("error: push failed: No changes to push");
      const j = await runCli(["git", "push", "ses_a1", "--json"], { env: env(s.url) });
      expect(j.code).toBe(1);
      expect(JSON.parse(j.stdout)).toEqual(answer);
    } finally {
      await s.close();
    }
  });

  it("git on a paused session says it is paused and how to resume it", async () => {
    const s = await scripted((x) =>
      x.fallback(json(400, { detail: "Session is not running (state: paused)" }, ANNOUNCED_LIMITS)),
    );
    try {
      const r = await runCli(["git", "push", "ses_a1"], { env: env(s.url) });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Session is not running (state: paused)");
      expect(r.stderr).toContain(
        "hint: The session is paused: resume it first (the service resumes it on its own when a prompt arrives).",
      );
    } finally {
      await s.close();
    }
  });
});

describe("the reference service's documented /git", () => {
  const post = (id: string, body: unknown) =>
    fetch(`${ref.url}/api/sessions/${id}/git`, {
      method: "POST",
      headers: { authorization: `Bearer ${ref.key("owner")}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("answers a flat body with flat fields, success false with its error", async () => {
    const id = ref.sessions().find((x) => x.state === "active")?.id as string;
    const refused = await post(id, { operation: "push" });
    expect(refused.status).toBe(200);
    expect(refused.headers.get("x-ratelimit-limit")).toBeTruthy();
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ success: false, operation: "push" });
    expect(String(body.error)).toMatch(/clone/i);

    const clone = await runCli(["git", "clone", id, "demo/app"], {
      env: env(ref.url, ref.key("owner")),
    });
    expect(clone.code).toBe(0);
    const branch = (await (
      await post(id, { operation: "create_branch", branch: "feat/flat" })
    ).json()) as Record<string, unknown>;
    expect(branch).toMatchObject({
      success: true,
      created_branch: "feat/flat",
      current_branch: "feat/flat",
    });
    const push = (await (await post(id, { operation: "push" })).json()) as Record<string, unknown>;
    expect(push).toMatchObject({ success: true, current_branch: "feat/flat", error: null });
    const pr = (await (
      await post(id, { operation: "create_pr", pr_title: "Flat" })
    ).json()) as Record<string, unknown>;
    expect(pr, JSON.stringify(pr)).toMatchObject({
      success: true,
      current_branch: "feat/flat",
      pr_number: 1,
    });
    expect(String(pr.pr_url)).toMatch(/\/pull\/1$/);
  });

  it("refuses git on a paused session as documented", async () => {
    const paused = ref.sessions().find((x) => x.state === "paused");
    if (!paused) throw new Error("the seed has no paused session");
    const r = await post(paused.id, { operation: "push" });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ detail: "Session is not running (state: paused)" });
  });
});
