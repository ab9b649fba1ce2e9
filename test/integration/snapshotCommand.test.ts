import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";

/**
 * `agent-sessions snapshot`: the UI rendered headlessly at a fixed size, printed as text that
 * fits the size it was given (docs, bug reports and CI paste it as is).
 */

const home = tempConfigHome();
const env = { XDG_CONFIG_HOME: home.dir, AGENT_SESSIONS_API_KEY: undefined };
const SIZE = ["--width", "100", "--height", "30", "--after", "800"];

afterAll(() => home.cleanup());

/** Terminal columns of a line without escapes: one per code point (box drawing is 1 wide). */
function columns(line: string): number {
  return Array.from(line).length;
}

function lines(stdout: string): string[] {
  const all = stdout.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

describe("agent-sessions snapshot", () => {
  it("prints one plain-text frame that fits the width and height it was given", async () => {
    const r = await runCli(["snapshot", "--demo", ...SIZE], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const frame = lines(r.stdout);
    expect(frame.length).toBeLessThanOrEqual(30);
    // It fills the screen: not a fragment of a frame.
    expect(frame.length).toBeGreaterThanOrEqual(25);
    const tooWide = frame.filter((l) => columns(l) > 100);
    expect(tooWide).toEqual([]);
    // No escape sequence and no other control character, only text and newlines.
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);

    // The header: profile, the service, who the key belongs to.
    expect(frame[0]).toMatch(/^╭─+╮$/);
    expect(r.stdout).toMatch(/agent-sessions · profile: demo · http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stdout).toMatch(/\(owner @ org_\w+ "Demo Org"\)/);
    expect(r.stdout).toContain('key "demo-owner"');
    // The session list with its rows, and the two demo sessions opened in panes.
    expect(r.stdout).toMatch(/Sessions \d+\/\d+/);
    // Beside panes on 100 columns a row is its state glyph and title (no id): the seeded
    // demo's six sessions, which stand still while the frame is taken.
    const rows = frame.filter((l) => /^│[▸ ][ !⏸][ \d] (?:ses_\w+ )?[●⏸■✓✗◌○◍✕◆] \S/u.test(l));
    expect(rows).toHaveLength(6);
    // Narrow pane titles keep state and connection before the id; the frame waits for the
    // streams, and the panes show the sessions' simulated past from their history.
    expect(r.stdout).toMatch(/[─═━] 1 ⏸ paused · ● live · ses_/u);
    expect(r.stdout).toMatch(/[─═━] 2 ● active · ● live · ses_/u);
    expect(r.stdout).toContain("live from here");
    // The footer's key hints close the frame.
    expect(frame.at(-1)).toMatch(/q quit/);
  });

  it("--open past the pane limit says which sessions were left out, on stderr and in the frame", async () => {
    const ids = Array.from({ length: 7 }, (_, i) => ["--open", `ses_n${i + 1}`]).flat();
    const r = await runCli(["snapshot", "--demo", "--width", "200", "--height", "30", ...ids], {
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning: 1 session was not opened, at most 6 panes: ses_n7");
    expect(r.stdout).toContain("1 session was not opened, at most 6 panes: ses_n7");
  });

  it("draws ASCII through the UI's glyph table under TERM=dumb or a locale without UTF-8", async () => {
    for (const extra of [{ TERM: "dumb", LC_ALL: "C" }, { LANG: "en_US.ISO-8859-1" }]) {
      const r = await runCli(["snapshot", "--demo", ...SIZE], { env: { ...env, ...extra } });
      expect(r.code).toBe(0);
      // Nothing but ASCII: no box drawing, badge or ellipsis.
      expect(r.stdout).not.toMatch(/[^\u0000-\u007f]/);
      const frame = lines(r.stdout);
      // The same layout: the header's rounded border as the UI draws it there.
      expect(frame[0]).toMatch(/^\+-+\+$/);
      expect(frame.filter((l) => l.length > 100)).toEqual([]);
      expect(r.stdout).toMatch(/Sessions \d+\/\d+/);
    }
  });

  it("keeps colours with --ansi", async () => {
    const r = await runCli(["snapshot", "--demo", ...SIZE, "--ansi"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\u001b\[[0-9;]*m/);
    const plain = lines(r.stdout.replace(/\u001b\[[0-9;]*m/g, ""));
    expect(plain.length).toBeLessThanOrEqual(30);
    expect(plain.filter((l) => columns(l) > 100)).toEqual([]);
  });

  it("refuses an --open value that is not a session id with exit 2", async () => {
    const r = await runCli(["snapshot", "--demo", "--open", "bad"], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("'bad' is not a session id");
  });
});
