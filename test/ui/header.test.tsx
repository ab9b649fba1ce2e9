import { afterEach, describe, expect, it } from "vitest";
import {
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/** The header tells the user who they are to the service, from verify and me. */

afterEach(unmountReference);

describe("header", () => {
  it("warns about a key expiring within a week", async () => {
    const fx = await startReference({ key: "expiring" });
    const h = mountOnFixture(fx, { columns: 120, rows: 24 });
    const frame = await waitForContent(h, /⚠ expires in 2d 2\dh|⚠ expires in 3d/);
    expect(frame).toContain('key "demo-expiring"');
    expect(frame).toContain("(member @ org_");
    expect(h.rawFrame()).toMatch(/\x1b\[33m[^\n]*⚠ expires in/);
  });

  it("shows the scopes a demotion narrowed away, and legacy names expanded", async () => {
    const demoted = await startReference({ key: "demoted" });
    const h = mountOnFixture(demoted, { columns: 180, rows: 30 });
    let frame = await waitForContent(h, "narrowed by role member");
    expect(frame).toContain("stored: +sessions:terminal +integrations:write +sessions:delete");
    expect(frame).toMatch(
      /effective: sessions:read sessions:write sessions:prompt integrations:read\b/,
    );
    h.unmount();
    await demoted.close();

    const legacy = await startReference({ key: "legacy" });
    const second = mountOnFixture(legacy, { columns: 160, rows: 30 });
    frame = await waitForContent(second, "legacy read, deploy expanded");
    expect(frame).toContain("sessions:write");
  });

  it("is two plain lines below 30 rows (the rows go to the sessions), the full box from 30", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 120, rows: 24 });
    let frame = await waitForContent(h, "effective: sessions:read");
    let lines = frame.split("\n");
    expect(lines[0]).toMatch(/^ agent-sessions · profile: work/);
    expect(lines[1]).toMatch(/^ usr_\w+ \(owner @ org_\w+\) · key "demo-owner"/);
    expect(lines[1]).toContain("effective: sessions:read");
    // The list starts on the third row.
    expect(lines[2]).toMatch(/^[┌╔]/);
    h.resize(120, 30);
    frame = await waitForContent(h, (f) => f.startsWith("╭"));
    lines = frame.split("\n");
    expect(lines[1]).toMatch(/^│ agent-sessions · profile: work/);
    expect(lines[3]).toMatch(/^│ effective: sessions:read/);
    expect(lines[4]).toMatch(/^╰/);
  });

  it("a personal key shows no organization", async () => {
    const fx = await startReference({ key: "personal" });
    const h = mountOnFixture(fx, { columns: 120, rows: 24 });
    const frame = await waitForContent(h, "personal key @ usr_");
    expect(frame).not.toContain("org_");
  });

  it("draws an answer's rate-limit figures on the next tick, not in a frame of each answer", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 160, rows: 24 });
    const figure = (f: string) => Number(/(\d+)\/1000 left/.exec(f)?.[1] ?? Number.NaN);
    const first = figure(await waitForContent(h, /\d+\/1000 left/));
    const before = h.writes.length;
    // Six answers that change nothing else on screen (a tick may fall among them).
    for (let i = 0; i < 6; i++) await fx.client.getSession(fx.server.sessionIds()[0] as string);
    expect(h.writes.length - before).toBeLessThanOrEqual(1);
    // Within a tick the header says what the last answer said.
    await waitForContent(h, (f: string) => figure(f) <= first - 6, 2_500);
  });

  it("a retry wait says what happened: a dropped connection is not called a rate limit", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 160, rows: 24 });
    await waitForContent(h, /\d+\/\d+ left, resets in/);
    const wait = {
      attempt: 2,
      maxAttempts: 5,
      delayMs: 30_000,
      until: Date.now() + 30_000,
      reason: "connection reset",
      cause: { kind: "network", failure: "reset" } as const,
    };
    fx.client.rateLimit.beginWait(wait);
    const frame = await waitForContent(h, /connection reset: retry in \d+s \(attempt 2\/5\)/);
    expect(frame).not.toContain("rate limited");
    fx.client.rateLimit.endWait(wait);
    await waitForContent(h, (f: string) => !f.includes("connection reset"));
  });

  it("shows a rate-limit wait as a countdown with the attempt, until the retry goes through", async () => {
    const fx = await startReference();
    const f = fx;
    const h = mountOnFixture(f, { columns: 160, rows: 24 });
    await waitForContent(h, /\d+\/1000 left/);
    // The next request is refused with Retry-After: 2; Ctrl-R reloads identity and sessions.
    f.server.faults.set({ failStatus: 429, failCount: 1, failRetryAfter: "2" });
    await pressKey(h, "ctrlR");
    await waitForContent(h, /rate limited \(HTTP 429\): retry in [12]s \(attempt 2\/2\)/);
    expect(f.client.rateLimit.waiting).not.toBeNull();
    await waitForContent(h, (fr) => !fr.includes("rate limited"), 10_000);
    expect(f.client.rateLimit.waiting).toBeNull();
    expect(h.frame()).toMatch(/\d+\/1000 left/);
  });
});
