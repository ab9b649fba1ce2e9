import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exposureWarning, formatBanner } from "../../src/server/banner.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli } from "../helpers/cli.js";

/** What a user typing commands from memory gets: suggestions, help, clear usage errors. */

describe("unknown commands and help", () => {
  it("a mistyped command suggests the nearest one and exits 2", async () => {
    const r = await runCli(["whoam"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown command 'whoam'$/m);
    expect(r.stderr).toMatch(/Did you mean whoami\?/);
    expect(r.stderr).not.toMatch(/too many arguments/);
    expect(r.stdout).toBe("");
  });

  it("every command is suggested from the same list (sessions, profiles, watch, git push)", async () => {
    for (const [typo, meant] of [
      ["sesions", "sessions"],
      ["profile", "profiles"],
      ["wacth", "watch"],
    ]) {
      const r = await runCli([typo as string]);
      expect(r.code, typo).toBe(2);
      expect(r.stderr, typo).toContain(`Did you mean ${meant}?`);
    }
    const git = await runCli(["git", "pus"]);
    expect(git.code).toBe(2);
    expect(git.stderr).toContain("Did you mean push?");
  });

  it("a mistyped command with options still suggests the command, not the option", async () => {
    const r = await runCli(["sesions", "--json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown command 'sesions'$/m);
    expect(r.stderr).toContain("Did you mean sessions?");
    expect(r.stderr).not.toContain("unknown option");
    // An unknown option before any command is still that.
    const opt = await runCli(["--jsn", "sessions"]);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toMatch(/^error: unknown option '--jsn'$/m);
  });

  it("git with no subcommand prints its help on stderr and exits 2", async () => {
    const r = await runCli(["git"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Usage: agent-sessions git \[options\] \[command\]/);
    expect(r.stderr).toMatch(/^\s+clone \[options\] <session_id> <repo_url>/m);
  });

  it("open with more sessions than panes names those left out, on stderr", async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `ses_${i + 1}`);
    const r = await runCli(["open", ...ids, "ses_1"]);
    expect(r.stderr).toContain(
      "warning: 2 sessions were not opened, at most 6 panes: ses_7, ses_8 (close a pane with x, then open from the list)",
    );
    // Without a terminal the UI does not start at all, and says so after.
    expect(r.stderr).toContain("the terminal UI needs a terminal");
    expect(r.code).toBe(2);
  });

  it("a session id where a command goes points to open", async () => {
    const r = await runCli(["ses_abc123", "ses_def456"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown command 'ses_abc123'$/m);
    expect(r.stderr).toMatch(
      /^hint: To open sessions in the UI: agent-sessions open ses_abc123 ses_def456$/m,
    );
  });

  it("help prints the program's help on stdout and exits 0", async () => {
    const r = await runCli(["help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: agent-sessions \[options\] \[command\]/);
    expect(r.stdout).toMatch(/^\s+whoami\b/m);
    expect(r.stdout).toMatch(/^\s+help \[command\.\.\.\]/m);
    expect(r.stderr).toBe("");
  });

  it("help <command> and help git <subcommand> print that command's help", async () => {
    const watch = await runCli(["help", "watch"]);
    expect(watch.code).toBe(0);
    expect(watch.stdout).toMatch(/^Usage: agent-sessions watch \[options\] \[session_id\.\.\.\]/);
    expect(watch.stdout).toContain("--max-events");
    const push = await runCli(["help", "git", "push"]);
    expect(push.code).toBe(0);
    expect(push.stdout).toMatch(/^Usage: agent-sessions git push/);
  });

  it("help with an unknown command says so with a suggestion", async () => {
    const r = await runCli(["help", "wacth"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'wacth'/);
    expect(r.stderr).toContain("Did you mean watch?");
  });
});

describe("serve usage", () => {
  it("a port out of range is a usage error naming the range, exit 2", async () => {
    for (const port of ["99999", "-1", "80x", "1.5"]) {
      const r = await runCli(["serve", "--port", port]);
      expect(r.code, port).toBe(2);
      expect(r.stderr, port).toMatch(/expected a port number from 0 to 65535/);
      expect(r.stderr, port).not.toMatch(/RangeError|ERR_SOCKET_BAD_PORT|\n\s+at /);
    }
  });
});

describe("serve banner", () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startServer({ seed: 3, paceMs: 0, sessionCount: 1 });
  });
  afterAll(async () => {
    await server.close();
  });

  it("on loopback it says nothing leaves this machine", () => {
    expect(formatBanner(server)).toMatch(
      /^.*\(loopback, demo data; nothing leaves this machine\)$/m,
    );
    expect(exposureWarning(server)).toBeNull();
    for (const url of ["http://localhost:1", "http://[::1]:1", "http://127.0.0.2:1"]) {
      expect(exposureWarning({ url }), url).toBeNull();
    }
  });

  it("on another address it warns instead of claiming nothing leaves the machine", () => {
    for (const url of ["http://0.0.0.0:8080", "http://[::]:8080", "http://192.168.1.5:8080"]) {
      const banner = formatBanner({ ...server, url });
      expect(banner, url).not.toMatch(/nothing leaves this machine/);
      expect(banner, url).toMatch(
        /^WARNING: listening on .*not loopback: other machines can reach/m,
      );
      expect(exposureWarning({ url }), url).toMatch(/demo keys .* work for anyone/);
    }
  });
});
