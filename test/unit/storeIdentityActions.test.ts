import { describe, expect, it } from "vitest";
import { InvalidKeyError, MissingScopeError } from "../../src/client/errors.js";
import { RateLimitTracker } from "../../src/client/rateLimit.js";
import { type GitResult, readGitAnswer } from "../../src/protocol/git.js";
import type { ApiKeyInfo, Identity } from "../../src/protocol/resources.js";
import { createActionsStore, describeResult } from "../../src/store/actionsStore.js";
import { createIdentityStore } from "../../src/store/identityStore.js";
import { createRateLimitStore } from "../../src/store/rateLimitStore.js";

const keyInfo: ApiKeyInfo = {
  valid: true,
  key_id: "3f1c",
  name: "ci-bot\x1b]0;owned\x07",
  user_id: "alice",
  organization_id: "org_42",
  tenant_id: "org_42",
  role: "member",
  scopes: ["sessions:read"],
  effective_scopes: ["sessions:read"],
  expires_at: null,
};
const identity: Identity = { tenant_id: "org_42", principal_id: "alice", scopes: ["read"] };

describe("identity store", () => {
  it("loads verify and me together, sanitizing what the server sent", async () => {
    const store = createIdentityStore({ now: () => 42 });
    const pending = store.getState().load({
      verify: async () => keyInfo,
      me: async () => identity,
    });
    expect(store.getState().loading).toBe(true);
    await pending;
    expect(store.getState()).toMatchObject({
      loading: false,
      error: null,
      identity,
      loadedAt: 42,
    });
    expect(store.getState().keyInfo!.name).toBe("ci-bot");
  });

  it("reports a refused key, and keeps the key details when only me fails", async () => {
    const store = createIdentityStore();
    await store.getState().load({
      verify: async () => {
        throw new InvalidKeyError("API key is invalid or expired", 401);
      },
      me: async () => identity,
    });
    expect(store.getState().error).toMatchObject({
      message: "API key is invalid or expired",
      code: "invalid_key",
    });
    await store.getState().load({
      verify: async () => keyInfo,
      me: async () => {
        throw new InvalidKeyError("me said no", 500);
      },
    });
    expect(store.getState().error).toBeNull();
    expect(store.getState().keyInfo).not.toBeNull();
    expect(store.getState().identityError!.message).toBe("me said no");
  });
});

describe("actions store", () => {
  const pushed: GitResult = readGitAnswer(200, {
    operation: "push",
    success: true,
    result: { branch: "fix-ci", sha: "abc1234def" },
  });

  it("tracks the running action and ends with a one-line result", async () => {
    let t = 1000;
    const store = createActionsStore({ now: () => t });
    let release!: (r: GitResult) => void;
    const pending = store.getState().run(
      { kind: "push" },
      "ses_a1",
      () =>
        new Promise<GitResult>((resolve) => {
          release = resolve;
        }),
    );
    expect(store.getState().running).toEqual({
      kind: "push",
      sessionId: "ses_a1",
      startedAt: 1000,
    });
    const second = await store
      .getState()
      .run({ kind: "branch", name: "x" }, "ses_a1", async () => pushed);
    expect(second).toMatchObject({ ok: false, error: { code: "busy" } });
    t = 1500;
    release({ ...pushed, output: "To origin\n * [new branch] fix-ci\x1b[2J" });
    const outcome = await pending;
    expect(outcome).toMatchObject({
      ok: true,
      message: "pushed fix-ci at abc1234def",
      output: "To origin\n * [new branch] fix-ci",
      finishedAt: 1500,
    });
    expect(store.getState().running).toBeNull();
    expect(store.getState().last).toBe(outcome);
    expect(store.getState().history).toHaveLength(1);
  });

  it("says nothing was pushed when git said the remote is up to date, however the answer carries it", () => {
    const asOutput = readGitAnswer(200, {
      operation: "push",
      success: true,
      result: { branch: "main", sha: "abc1234def", output: "$ git push\nEverything up-to-date" },
    });
    expect(describeResult({ kind: "push" }, asOutput)).toBe(
      "nothing to push (Everything up-to-date)",
    );
    // A server that answers with git's text as the result itself.
    const asResult = readGitAnswer(200, {
      operation: "push",
      success: true,
      result: "Everything up-to-date\n",
    });
    expect(describeResult({ kind: "push" }, asResult)).toBe(
      "nothing to push (Everything up-to-date)",
    );
    // Output that pushed something keeps saying what was pushed.
    const real = readGitAnswer(200, {
      operation: "push",
      result: { branch: "fix", sha: "abc1234def", output: " * [new branch] fix -> fix" },
    });
    expect(describeResult({ kind: "push" }, real)).toBe("pushed fix at abc1234def");
  });

  it("shows the server's 403 message verbatim", async () => {
    const store = createActionsStore();
    const outcome = await store.getState().run({ kind: "pr", title: "t" }, "ses_a1", async () => {
      throw new MissingScopeError(
        "this key may not write to sessions (needs sessions:write)",
        "sessions:write",
      );
    });
    expect(outcome.ok).toBe(false);
    expect(store.getState().last).toMatchObject({
      message: "this key may not write to sessions (needs sessions:write)",
      error: { code: "missing_scope", requiredScope: "sessions:write" },
    });
    store.getState().dismiss();
    expect(store.getState().last).toBeNull();
  });

  it("describes a pull request and can cancel a running action", async () => {
    const store = createActionsStore();
    const pr = await store.getState().run({ kind: "pr", title: "Fix CI" }, "ses_a1", async () =>
      readGitAnswer(200, {
        operation: "create-pr",
        success: true,
        result: { pr_number: 7, pr_url: "https://git.example/pull/7", head: "fix-ci" },
      }),
    );
    expect(pr.message).toBe(
      "opened pull request #7: Fix CI https://git.example/pull/7 (branch fix-ci)",
    );
    const failed = await store
      .getState()
      .run({ kind: "push" }, "ses_a1", async () =>
        readGitAnswer(200, { operation: "push", success: false, error: "remote hung up" }),
      );
    expect(failed).toMatchObject({ ok: false, message: "push failed: remote hung up" });
    const cancelled = store.getState().run(
      { kind: "clone", repoUrl: "demo/app" },
      "ses_a1",
      (signal) =>
        new Promise<GitResult>((_, reject) => {
          signal.addEventListener("abort", () => reject(new Error("cancelled")));
        }),
    );
    store.getState().cancel();
    expect(await cancelled).toMatchObject({ ok: false, message: "cancelled" });
  });
});

describe("rate-limit store", () => {
  it("mirrors the tracker's figures and waits until disposed", () => {
    const tracker = new RateLimitTracker({ now: () => 5000 });
    const store = createRateLimitStore(tracker);
    expect(store.getState().info).toBeNull();
    tracker.update({ "x-ratelimit-remaining": "118", "x-ratelimit-limit": "120" });
    expect(store.getState().info).toMatchObject({ remaining: 118, limit: 120 });
    const wait = {
      attempt: 2,
      maxAttempts: 5,
      delayMs: 3000,
      until: 8000,
      reason: "429",
      cause: { kind: "rate_limited" as const },
    };
    tracker.beginWait(wait);
    expect(store.getState().waiting).toBe(wait);
    tracker.endWait(wait);
    expect(store.getState().waiting).toBeNull();
    store.dispose();
    tracker.update({ "x-ratelimit-remaining": "1" });
    expect(store.getState().info!.remaining).toBe(118);
  });
});
