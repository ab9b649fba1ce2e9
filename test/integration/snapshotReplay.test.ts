import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";

/**
 * `snapshot --replay FILE --at T`: the frame of a recording at one moment, the same bytes on
 * every run (fixed clock, fixed size, nothing of the wall clock), with no network and no key.
 * The committed recording in test/fixtures drives it.
 */

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "recording.ndjson");
const home = tempConfigHome();
// No key anywhere, and a time zone pinned: the frame shows local times.
const env = { XDG_CONFIG_HOME: home.dir, XDG_STATE_HOME: home.dir, TZ: "UTC" };
const SIZE = ["--width", "110", "--height", "34"];

afterAll(() => home.cleanup());

describe("agent-sessions snapshot --replay", () => {
  it("renders the recording at a moment, byte for byte the same on every run", async () => {
    // By a relative name: the header shows the file as given, and the frame must not depend
    // on where the repository is checked out (its path's length moves the header's padding).
    const args = ["snapshot", "--replay", "recording.ndjson", "--at", "10:02:30", ...SIZE];
    const cwd = dirname(FIXTURE);
    const [a, b] = await Promise.all([runCli(args, { env, cwd }), runCli(args, { env, cwd })]);
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(a.stdout).toMatchSnapshot();
  });

  it("shows what had happened by the moment asked for", async () => {
    const early = await runCli(["snapshot", "--replay", FIXTURE, "--at", "+10s", ...SIZE], { env });
    expect(early.code).toBe(0);
    expect(early.stdout).toContain("REPLAY ⏸ paused ×1 · 10:00:10 (3%");
    expect(early.stdout).toContain("Upgrading the build to Node");
    expect(early.stdout).not.toContain("npm install: 5% done");
    const end = await runCli(["snapshot", "--replay", FIXTURE, ...SIZE], { env });
    expect(end.stdout).toContain("REPLAY ■ end of recording");
    expect(end.stdout).toContain("Build green on Node 24.");
  });

  it("says what is wrong with a file or a time, with exit 2", async () => {
    const missing = await runCli(["snapshot", "--replay", "/nonexistent.ndjson"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      "cannot read /nonexistent.ndjson: no such file or folder (ENOENT)",
    );
    expect(missing.stderr).toMatch(/hint: Give NDJSON files/);
    const badTime = await runCli(["snapshot", "--replay", FIXTURE, "--at", "soon"], { env });
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('--at "soon" is not a time');
    const empty = await runCli(["snapshot", "--replay", "/dev/null"], { env });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("no events in /dev/null");
  });

  it("replay reads the files first, then needs a terminal", async () => {
    const bad = await runCli(["replay", "/nonexistent.ndjson"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("cannot read /nonexistent.ndjson");
    const noTty = await runCli(["replay", FIXTURE], { env });
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain("the terminal UI needs a terminal");
  });
});
