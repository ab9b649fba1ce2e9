import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, cliOnReference } from "../helpers/cli.js";
import { TmuxServer, tmuxForSuite } from "../helpers/tmux.js";

/**
 * The hidden prompt in a real terminal (tmux): what is on the screen after typing a key is
 * what a shoulder-surfer or a screen recording would see.
 */

const haveTmux = tmuxForSuite("login prompt terminal suite") !== null;

describe.skipIf(!haveTmux)("login prompt in a terminal", () => {
  const cli = cliOnReference({ seed: 5, sessionCount: 1, paceMs: 0 });
  // A tmux server of its own per test: a new session on the socket of the server the test
  // before just killed can meet that server still shutting down ("server exited unexpectedly").
  let socket = "";
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });

  beforeEach(() => {
    socket = `as-login-${randomBytes(4).toString("hex")}`;
  });
  afterEach(async () => {
    // The login still running (a test that failed early) must be gone before its folder goes
    // (cliOnReference's afterEach, registered first, runs after this one).
    await new TmuxServer(socket).kill();
  });

  function startLogin(flags = "--insecure-storage"): void {
    const cmd = [
      "env -i",
      `PATH='${process.env.PATH ?? "/usr/bin:/bin"}'`,
      `HOME='${cli.home.dir}'`,
      `XDG_CONFIG_HOME='${cli.home.dir}'`,
      "TERM=xterm-256color",
      `'${process.execPath}' '${CLI}' login ${flags} --base-url ${cli.server.url}`,
      "; echo EXIT=$?; exec cat",
    ].join(" ");
    tmux("new-session", "-d", "-x", "150", "-y", "30", "sh", "-c", cmd);
  }

  const screen = () => tmux("capture-pane", "-p", "-J");

  async function waitForScreen(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = screen();
      if (pattern.test(text)) return text;
      if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${text}`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  it("the key is not echoed; backspace edits it; Enter logs in", async () => {
    expect(existsSync(CLI), "run npm run build first").toBe(true);
    startLogin();
    await waitForScreen(/API key for profile default .*not echoed: /);
    const key = cli.server.key("owner");
    // A stray character, erased again, must not end up in the stored key.
    tmux("send-keys", "-l", `${key.slice(0, 10)}Z`);
    tmux("send-keys", "BSpace");
    tmux("send-keys", "-l", key.slice(10));
    tmux("send-keys", "Enter");
    const after = await waitForScreen(/EXIT=\d+/);
    expect(after).toContain("EXIT=0");
    expect(after).toContain("Logged in to");
    expect(after).not.toContain(key);
    expect(after).not.toContain(key.slice(4, 14));
    const stored = readFileSync(join(cli.home.dir, "agent-sessions", "credentials", "default.key"));
    expect(stored.toString().trim()).toBe(key);
  });

  // env -i leaves no D-Bus session: no keychain, as on a headless cli.server.
  describe("without a keychain, login asks where the key goes, naming the flag scripts use", () => {
    async function choose(answer: string): Promise<string> {
      expect(existsSync(CLI), "run npm run build first").toBe(true);
      startLogin("");
      const asked = await waitForScreen(/f, r or q: /);
      expect(asked).toContain("The OS keychain is unavailable");
      expect(asked).toContain("(in scripts: agent-sessions login --insecure-storage)");
      expect(asked).toContain("(in scripts: set AGENT_SESSIONS_API_KEY instead of logging in)");
      tmux("send-keys", "-l", answer);
      tmux("send-keys", "Enter");
      if (answer === "q") return waitForScreen(/EXIT=\d+/);
      await waitForScreen(/not echoed: /);
      tmux("send-keys", "-l", cli.server.key("owner"));
      tmux("send-keys", "Enter");
      return waitForScreen(/EXIT=\d+/);
    }
    const keyFile = () => join(cli.home.dir, "agent-sessions", "credentials", "default.key");

    it("f: a 0600 file", async () => {
      const after = await choose("f");
      expect(after).toContain("EXIT=0");
      expect(after).toContain("Logged in to");
      expect(readFileSync(keyFile(), "utf8").trim()).toBe(cli.server.key("owner"));
      expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    });

    it("r: this run only, verified and stored nowhere", async () => {
      const after = await choose("r");
      expect(after).toContain("EXIT=0");
      expect(after).toContain("The key is valid for");
      expect(after).toContain("nothing was stored");
      expect(existsSync(keyFile())).toBe(false);
    });

    it("q: cancels with the keychain's error and the way out", async () => {
      const after = await choose("q");
      expect(after).toContain("EXIT=1");
      expect(after).toContain("error: the OS keychain is unavailable");
      expect(after).toContain("hint: Set AGENT_SESSIONS_API_KEY");
      expect(existsSync(keyFile())).toBe(false);
    });
  });

  it("Ctrl-C cancels, restores the terminal and stores nothing", async () => {
    expect(existsSync(CLI), "run npm run build first").toBe(true);
    startLogin();
    await waitForScreen(/not echoed: /);
    tmux("send-keys", "-l", "ask_partial");
    tmux("send-keys", "C-c");
    const after = await waitForScreen(/EXIT=\d+/);
    expect(after).toContain("EXIT=130");
    expect(after).toContain("cancelled at the prompt; nothing was stored");
    expect(after).not.toContain("ask_partial");
    expect(existsSync(join(cli.home.dir, "agent-sessions"))).toBe(false);
    // The terminal echoes again: typed text shows up (read by `cat`).
    tmux("send-keys", "-l", "visible-again");
    await waitForScreen(/visible-again/);
  });
  it("SIGTERM at the prompt restores the terminal, says so and exits 143", async () => {
    expect(existsSync(CLI), "run npm run build first").toBe(true);
    startLogin();
    await waitForScreen(/not echoed: /);
    tmux("send-keys", "-l", "ask_partial");
    // The shell of the pane runs the CLI as its one child.
    const shell = tmux("display-message", "-p", "#{pane_pid}").trim();
    const child = execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).trim();
    expect(child).toMatch(/^\d+$/);
    process.kill(Number(child), "SIGTERM");
    const after = await waitForScreen(/EXIT=\d+/);
    expect(after).toContain("EXIT=143");
    expect(after).toContain("error: stopped by SIGTERM at the prompt; nothing was stored");
    expect(after).not.toContain("ask_partial");
    expect(existsSync(join(cli.home.dir, "agent-sessions"))).toBe(false);
    // Echo and line editing are back: typed text shows up, and Enter ends the line (cat reads
    // whole lines only in cooked mode, so the echo of its output doubles the line).
    tmux("send-keys", "-l", "visible-again");
    tmux("send-keys", "Enter");
    await waitForScreen(/visible-again\s*\n\s*visible-again/);
  });
});
