import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { journalFor } from "../../src/cli/journal/journalSetup.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";

/** `agent-sessions journal path|off|on|prune`, as a user runs them (the built CLI). */

const home = tempConfigHome();
const env = { XDG_CONFIG_HOME: home.dir, XDG_STATE_HOME: home.dir };
const root = join(home.dir, "agent-sessions", "journal");

afterAll(() => home.cleanup());

function journalFile(service: string, name: string, ageDays = 0): string {
  mkdirSync(join(root, service), { recursive: true });
  const path = join(root, service, name);
  writeFileSync(path, '{"event":"x","data":null}\n');
  if (ageDays > 0) {
    const t = Date.now() / 1000 - ageDays * 86_400;
    utimesSync(path, t, t);
  }
  return path;
}

describe("agent-sessions journal", () => {
  it("prints where the journal lives, under XDG_STATE_HOME", async () => {
    const r = await runCli(["journal", "path"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(root);
    const fallback = await runCli(["journal", "path"], {
      env: { XDG_CONFIG_HOME: home.dir, XDG_STATE_HOME: undefined, HOME: "/home/someone" },
    });
    expect(fallback.stdout.trim()).toBe("/home/someone/.local/state/agent-sessions/journal");
  });

  it("turns off in the config file and on again", async () => {
    const off = await runCli(["journal", "off"], { env });
    expect(off.code).toBe(0);
    const config = JSON.parse(
      readFileSync(join(home.dir, "agent-sessions", "config.json"), "utf8"),
    );
    expect(config.journal).toBe(false);
    const state = await runCli(["journal", "path", "--json"], { env });
    expect(JSON.parse(state.stdout)).toEqual({ path: root, on: false });
    const on = await runCli(["journal", "on"], { env });
    expect(on.code).toBe(0);
    const again = await runCli(["journal", "path", "--json"], { env });
    expect(JSON.parse(again.stdout)).toEqual({ path: root, on: true });
  });

  it("is what the UI follows: off in the config or with --no-journal, else on in its folder", async () => {
    const cfgEnv = { ...process.env, ...env };
    await runCli(["journal", "off"], { env });
    const off = await journalFor("http://127.0.0.1:9", { env: cfgEnv });
    expect(off.journal).toBeNull();
    expect(off.status.getState()).toMatchObject({ state: "off" });
    expect(off.status.getState().reason).toContain("agent-sessions journal on");
    await runCli(["journal", "on"], { env });
    const flag = await journalFor("http://127.0.0.1:9", { env: cfgEnv, noJournal: true });
    expect(flag.journal).toBeNull();
    expect(flag.status.getState()).toMatchObject({ state: "off", reason: "--no-journal" });
    const on = await journalFor("http://127.0.0.1:9", { env: cfgEnv });
    expect(on.journal).not.toBeNull();
    expect(on.status.getState().state).toBe("on");
    // One folder per service: its host and port, and a hash of its base URL.
    expect(on.status.getState().dir).toMatch(
      /\/agent-sessions\/journal\/127\.0\.0\.1_9-[0-9a-f]{12}$/,
    );
    await on.journal?.dispose();
  });

  it("prunes one session's files, old files, or everything", async () => {
    const a = journalFile("svc-1", "ses_a.ndjson");
    const a1 = journalFile("svc-1", "ses_a.1.ndjson");
    const b = journalFile("svc-2", "ses_b.ndjson", 10);
    const c = journalFile("svc-2", "ses_c.ndjson");
    const one = await runCli(["journal", "prune", "--session", "ses_a", "--yes"], { env });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^journal: removed 2 files \(\d+ B\) from /);
    expect([existsSync(a), existsSync(a1), existsSync(b), existsSync(c)]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    const old = await runCli(["journal", "prune", "--older-than", "7d", "--yes"], { env });
    expect(old.stdout).toMatch(/removed 1 file /);
    expect([existsSync(b), existsSync(c)]).toEqual([false, true]);
    const all = await runCli(["journal", "prune", "--yes"], { env });
    expect(all.stdout).toMatch(/removed 1 file /);
    expect(existsSync(c)).toBe(false);
  });

  it("without a terminal, refuses to prune unless --yes is given, and removes nothing", async () => {
    const a = journalFile("svc-1", "ses_a.ndjson");
    const r = await runCli(["journal", "prune"], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^error: journal prune would remove 1 file \(\d+ B\) from .* and asks first, but there is no terminal to ask on; nothing was removed\nhint: Add --yes to prune without asking/,
    );
    expect(existsSync(a)).toBe(true);
    await runCli(["journal", "prune", "--yes"], { env });
    expect(existsSync(a)).toBe(false);
  });

  it("never removes the journal a running client holds; once it closes, prune may", async () => {
    const cfgEnv = { ...process.env, ...env };
    // This test process is the running client (the UI opens its journal the same way).
    const ui = await journalFor("http://127.0.0.1:9", { env: cfgEnv });
    const journal = ui.journal;
    if (!journal) throw new Error("the journal is on");
    journal.record("ses_live", "process_output", '{"text":"seen\\n"}', "1", Date.now());
    const dir = ui.status.getState().dir as string;
    await journal.dispose();
    // dispose lets go; open it again to hold it while prune runs.
    const held = await journalFor("http://127.0.0.1:9", { env: cfgEnv });
    await held.journal?.load("ses_live");
    const other = journalFile("svc-2", "ses_b.ndjson");
    const live = join(dir, "ses_live.ndjson");
    expect(existsSync(live)).toBe(true);
    const r = await runCli(["journal", "prune", "--yes"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^journal: removed 1 file /);
    expect(r.stderr).toContain(
      `kept 1 file of a journal in use by a running client (pid ${process.pid}); quit it first to prune those`,
    );
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(false);
    await held.journal?.dispose();
    const after = await runCli(["journal", "prune", "--yes"], { env });
    expect(after.stdout).toMatch(/^journal: removed 1 file /);
    expect(after.stderr).toBe("");
    expect(existsSync(live)).toBe(false);
  });

  it("refuses an age it cannot read, with exit 2", async () => {
    const r = await runCli(["journal", "prune", "--older-than", "soon"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("expected an age such as 30m, 12h or 7d");
  });
});
