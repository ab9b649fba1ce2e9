import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { keychainAccount, keychainDelete, keychainGet } from "../../src/credentials/keychain.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { CLI, tempConfigHome } from "../helpers/cli.js";
import { keychainProblem } from "../helpers/keychainProbe.js";
import { startProxy } from "../helpers/netFixtures.js";
import { cleanEnvCommand, type TmuxPane, TmuxServer, tmuxForSuite } from "../helpers/tmux.js";

/**
 * The built binary in a real terminal: tmux runs `agent-sessions` against the reference
 * service started here, keys are sent as a user would type them, and assertions are made on
 * what tmux shows (its screen, its alternate-screen and cursor state, its title and paste
 * buffers). The app runs with a clean environment: no CI (Ink would write only the final
 * frame), no NO_COLOR unless a test sets it.
 */

const TMUX = tmuxForSuite("tui end-to-end suite");

/**
 * The login screen stores the key in the real OS keychain. Guarded like test/keychain: skipped
 * without a Secret Service, a failure instead when AGENT_SESSIONS_REQUIRE_KEYCHAIN=1 (.ci/run).
 */
const keychainRequired = process.env.AGENT_SESSIONS_REQUIRE_KEYCHAIN === "1";
const noKeychain = TMUX
  ? await keychainProblem("agent-sessions-tui-e2e-probe")
  : "tmux is not installed";
if (TMUX && noKeychain && !keychainRequired) {
  console.warn(`tui login test skipped: ${noKeychain}`);
}

const BEFORE = "BEFORE-MARKER";
const WIDE = { width: 140, height: 40 };

/** A pane's title in its top border (the session list shows "1 ses_…" too, without a border). */
function titleRe(n: number, id: string): RegExp {
  // A pane that needs you names the reason before its number: "⚠ failed 1 ses_…".
  return new RegExp(`[─═━] (?:⚠ (?:[a-z]+ )+)?${n} ${id} `);
}

function lineWith(screen: string, re: RegExp | string): string | undefined {
  return screen.split("\n").find((l) => (typeof re === "string" ? l.includes(re) : re.test(l)));
}

/** Colour-setting SGR parameters (foreground, background, 256/true colour); 39/49 reset them. */
function colourCodes(screen: string): string[] {
  const found: string[] = [];
  for (const m of screen.matchAll(/\u001b\[([0-9;:]*)m/g)) {
    const params = (m[1] ?? "").split(/[;:]/).map(Number);
    if (
      params.some(
        (p) =>
          (p >= 30 && p <= 38) ||
          (p >= 40 && p <= 48) ||
          (p >= 90 && p <= 97) ||
          (p >= 100 && p <= 107),
      )
    ) {
      found.push(m[0]);
    }
  }
  return found;
}

describe.skipIf(!TMUX)(`terminal UI in tmux (${TMUX ?? "no tmux"})`, () => {
  const tmux = new TmuxServer();
  const home = tempConfigHome();
  let server: ReferenceServer;
  let ids: string[];
  let count = 0;
  const panes: TmuxPane[] = [];

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    // The simulated sessions change only when a test advances the clock.
    server = await startServer({ seed: 7, paceMs: 400, heartbeatMs: 300, clock: "manual" });
    ids = server.sessionIds();
    // The server outlives the sessions each test kills (no new-session racing a server that is
    // exiting), and an OSC 52 that slipped through lands in a paste buffer, where a test sees it.
    await tmux.run([
      "start-server",
      ";",
      "set-option",
      "-s",
      "exit-empty",
      "off",
      ";",
      "set-option",
      "-s",
      "set-clipboard",
      "on",
    ]);
  });

  /** What a test started beside the suite's service, stopped after its panes. */
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    server.faults.reset();
    await Promise.all(panes.splice(0).map((p) => p.kill()));
    for (const c of cleanups.splice(0)) await c();
  });

  afterAll(async () => {
    await tmux.kill();
    await server?.close();
    home.cleanup();
  });

  /**
   * Runs the CLI in a fresh tmux session the way a user's shell would: a line printed before
   * it (which the alternate screen must hide and give back) and its exit status after.
   */
  async function launch(
    args: string[],
    opts: {
      env?: Record<string, string | undefined>;
      size?: { width: number; height: number };
      /** Options for node itself, before the CLI's path. */
      nodeArgs?: string[];
    } = {},
  ): Promise<TmuxPane> {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home.dir,
      LANG: "C.UTF-8",
      XDG_CONFIG_HOME: home.dir,
      AGENT_SESSIONS_BASE_URL: server.url,
      AGENT_SESSIONS_API_KEY: server.key("owner"),
      AGENT_SESSIONS_RETRY_BASE_MS: "250",
      AGENT_SESSIONS_BELL: "0",
      ...opts.env,
    };
    const app = cleanEnvCommand(env, [process.execPath, ...(opts.nodeArgs ?? []), CLI, ...args]);
    const script = `echo ${BEFORE}; ${app}; echo "EXIT=$?"; exec sleep 600`;
    const pane = await tmux.start(`t${++count}`, script, opts.size ?? WIDE);
    panes.push(pane);
    return pane;
  }

  async function expectRestored(pane: TmuxPane, exitCode = 0): Promise<string> {
    const screen = await pane.waitForText("EXIT=");
    expect(screen).toContain(BEFORE);
    expect(screen).toMatch(new RegExp(`EXIT=${exitCode}\\b`));
    expect(screen).not.toContain("agent-sessions ·");
    expect(await pane.format("#{alternate_on} #{cursor_flag}")).toBe("0 1");
    return screen;
  }

  /** The app's process: the one child of the pane's shell (env execs node). */
  async function appPid(pane: TmuxPane): Promise<number> {
    const shell = await pane.format("#{pane_pid}");
    const children = readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim();
    expect(children).toMatch(/^\d+$/);
    return Number(children);
  }

  /** The line discipline is back to cooked mode: typed text is echoed again. */
  async function expectEcho(pane: TmuxPane): Promise<void> {
    await pane.type("E2E-ECHO-BACK");
    await pane.waitForText("E2E-ECHO-BACK");
  }

  it("opens two sessions side by side and shows each one's events in its own pane", async () => {
    const [a, b] = [ids[0] as string, ids[1] as string];
    const pane = await launch(["open", a, b]);
    await pane.waitFor(
      "both panes live",
      (s) => titleRe(1, a).test(s) && titleRe(2, b).test(s) && /● live 2\/2/.test(s),
    );
    const screen0 = await pane.capture();
    expect(screen0).not.toContain(BEFORE);
    expect(screen0).toMatch(/agent-sessions · profile: default/);
    expect(await pane.format("#{alternate_on}")).toBe("1");

    server.emit(a, "process_output", { text: "E2E-ALPHA-line\n" });
    server.emit(b, "process_output", { text: "E2E-BRAVO-line\n" });
    const screen = await pane.waitForText(["E2E-ALPHA-line", "E2E-BRAVO-line"]);
    // Side by side: each marker sits in the columns under its own pane's title.
    const title = lineWith(screen, titleRe(1, a)) ?? "";
    const colA = title.search(titleRe(1, a));
    const colB = title.search(titleRe(2, b));
    expect(colB).toBeGreaterThan(colA);
    const alpha = (lineWith(screen, "E2E-ALPHA-line") ?? "").indexOf("E2E-ALPHA-line");
    const bravo = (lineWith(screen, "E2E-BRAVO-line") ?? "").indexOf("E2E-BRAVO-line");
    expect(alpha).toBeGreaterThan(colA);
    expect(alpha).toBeLessThan(colB);
    expect(bravo).toBeGreaterThan(colB);

    await pane.keys("q");
    await expectRestored(pane);
  });

  it("clones through the keyboard form, then pushes after confirming, and shows the results", async () => {
    const id = ids[2] as string;
    const pane = await launch(["open", id]);
    await pane.waitFor("the pane live", (s) => titleRe(1, id).test(s) && s.includes("● live"));

    await pane.keys("c");
    await pane.waitForText(`Clone a repository into ${id}`);
    await pane.type(server.repositories[0] as string);
    // Typed text and Enter in one read are one input event for Ink: wait for the text first.
    await pane.waitForText(server.repositories[0] as string);
    await pane.keys("Enter");
    // Replacing a workspace asks first.
    const cloneConfirm = await pane.waitForText("Clone — confirm");
    expect(cloneConfirm).toContain("This replaces the session's workspace");
    await pane.keys("y");
    await pane.waitFor("the clone result", (s) =>
      new RegExp(`✓ clone ${id}: cloned \\S+ \\(branch \\w+\\)`).test(s),
    );

    await pane.keys("p");
    const confirm = await pane.waitForText("Push — confirm");
    expect(confirm).toContain(id);
    expect(confirm).toContain(server.repositories[0] as string);
    expect(confirm).toMatch(/\[y\] push/);
    expect(confirm).toMatch(/⚠ \w+ is the repository's default branch/);
    await pane.keys("y");
    // A fresh clone has nothing the remote lacks unless the agent changed files meanwhile.
    await pane.waitFor("the push result", (s) =>
      new RegExp(
        `✓ push ${id}: (?:pushed \\w+ at [0-9a-f]{7,}|nothing to push \\(Everything up-to-date\\))`,
      ).test(s),
    );
    // The git process output also arrives on the session's own stream, in its pane.
    await pane.waitFor("git's output in the pane", (s) => /\$ git push/.test(s));
    expect(server.pullRequests()).toEqual([]);

    await pane.keys("q");
    await expectRestored(pane);
  });

  it("shows reconnecting when the service drops the stream, then goes live again with new events", async () => {
    const id = ids[3] as string;
    const pane = await launch(["open", id]);
    await pane.waitFor("the pane live", (s) => /● live/.test(lineWith(s, titleRe(1, id)) ?? ""));

    // The stream is cut at its next event and every reconnect is refused until reset.
    server.faults.set({
      dropAfter: 1,
      statusFor: { path: /\/events$/, status: 503, count: 1_000_000 },
    });
    server.emit(id, "process_output", { text: "E2E-BEFORE-DROP\n" });
    await pane.waitFor("a reconnecting pane", (s) =>
      /↻ reconnecting in \S+ \(attempt \d+\)/.test(lineWith(s, titleRe(1, id)) ?? ""),
    );

    server.faults.reset();
    await pane.waitFor("the pane live again", (s) => {
      const title = lineWith(s, titleRe(1, id)) ?? "";
      return title.includes("● live") && !title.includes("reconnecting");
    });
    server.emit(id, "process_output", { text: "E2E-AFTER-RECOVERY\n" });
    await pane.waitForText("E2E-AFTER-RECOVERY");

    await pane.keys("q");
    await expectRestored(pane);
  });

  // Keys 400 ms apart must each land within the 3 s hold: a run on a machine busy enough to
  // take longer than that to draw a key is tried again (twice), never passed blind.
  it("holds the list's order while keys arrive through live refreshes: jjj lands where the rows were", {
    retry: 2,
  }, async () => {
    // A service of its own: the work it makes (approvals asked, pauses) stays out of the
    // other tests' sessions, which stand still.
    const busy = await startServer({ seed: 7, paceMs: 400, heartbeatMs: 300, clock: "manual" });
    cleanups.push(() => busy.close());
    const pane = await launch([], {
      env: {
        AGENT_SESSIONS_BASE_URL: busy.url,
        AGENT_SESSIONS_API_KEY: busy.key("owner"),
        AGENT_SESSIONS_REFRESH_MS: "1000",
      },
    });
    await pane.waitForText("shown of");
    // Failed and destroyed sessions shown too (D), so no row leaves the list while it moves.
    await pane.keys("D");
    await pane.waitForText("destroyed and error sessions shown");
    const rowIds = (screen: string) =>
      screen
        .split("\n")
        .map((l) => /(ses_\w+)/.exec(l)?.[1])
        .filter((x): x is string => x !== undefined);
    const selected = (screen: string) =>
      /(ses_\w+)/.exec(screen.split("\n").find((l) => l.includes("▸")) ?? "")?.[1];
    await pane.keys("j");
    const first = await pane.waitFor("the cursor on the second row", (s) => {
      const ids = rowIds(s);
      return ids.length > 3 && selected(s) === ids[1];
    });
    const held = rowIds(first);
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Sorted by last update, the rows would reorder as the sessions work: they work 5 s (of
    // the service's clock) before each key, and the list is read every second.
    for (let k = 2; k < Math.min(8, held.length); k++) {
      busy.clock.advance(5_000);
      await pause(400);
      await pane.keys("j");
      await pane.waitFor(
        `the cursor on row ${k + 1} of the held order`,
        (s) => selected(s) === held[k],
      );
    }
    const on = held[Math.min(7, held.length - 1)] as string;
    // Keys pause: the new order applies, and the cursor stays on its session.
    await pause(3500);
    const after = await pane.waitFor(
      "the new order, the cursor still on its session",
      (s) => rowIds(s).join() !== held.join(),
    );
    expect(selected(after)).toBe(on);
    await pane.keys("q");
    await expectRestored(pane);
  });

  it("re-lays out on resize: side by side, stacked, too small, and back", async () => {
    const [a, b] = [ids[0] as string, ids[1] as string];
    const pane = await launch(["open", a, b]);
    const sideBySide = (s: string) => {
      const line = lineWith(s, titleRe(1, a));
      return line !== undefined && titleRe(2, b).test(line);
    };
    const stacked = (s: string) => {
      const one = lineWith(s, titleRe(1, a));
      const two = lineWith(s, titleRe(2, b));
      return one !== undefined && two !== undefined && one !== two;
    };
    const headerOnTop = (s: string) => s.startsWith("╭");

    await pane.waitFor("two panes side by side", sideBySide);
    await pane.resize(80, 30);
    const narrow = await pane.waitFor("two panes stacked", stacked);
    expect(headerOnTop(narrow)).toBe(true);
    expect(narrow.split("\n").every((l) => Array.from(l).length <= 80)).toBe(true);

    await pane.resize(30, 8);
    const tiny = await pane.waitForText("Terminal too small");
    expect(tiny).toContain("30×8");
    expect(tiny).not.toMatch(titleRe(1, a));

    await pane.resize(WIDE.width, WIDE.height);
    const back = await pane.waitFor("side by side again", sideBySide);
    expect(headerOnTop(back)).toBe(true);
    expect(back).not.toContain("Terminal too small");

    await pane.keys("q");
    await expectRestored(pane);
  });

  it("chooses widths from the terminal: titles stay whole, a short terminal gets a compact header", async () => {
    const [a, b] = [ids[0] as string, ids[1] as string];
    const names = server.sessions().map((x) => x.name);
    const pane = await launch(["open", a, b], { size: { width: 160, height: 40 } });
    /** The rows of the session list: between its border and the row of a pane's title. */
    const listRows = (s: string) =>
      s
        .split("\n")
        .filter((l) => /^[│║][▸ ][ ?✗✓~⏸✕][ \d] \S/.test(l))
        .map((l) => l.slice(0, l.indexOf("│", 1) > 0 ? l.indexOf("│", 1) : undefined));
    const wholeTitles = (s: string) => {
      const rows = listRows(s).join("\n");
      return names.every((n) => rows.includes(n));
    };
    for (const [w, h] of [
      [160, 40],
      [200, 50],
    ] as const) {
      await pane.resize(w, h);
      const screen = await pane.waitFor(`every title whole at ${w}×${h}`, (s) => {
        const first = s.split("\n")[0] ?? "";
        return wholeTitles(s) && Array.from(first).length === w && titleRe(1, a).test(s);
      });
      // Tall enough for the full header box.
      expect(screen.startsWith("╭")).toBe(true);
    }

    // 80×24: the titles are still there beside the panes, and the header is two plain lines.
    await pane.resize(80, 24);
    let screen = await pane.waitFor("the compact header at 80×24", (s) =>
      s.startsWith(" agent-sessions"),
    );
    const rows = listRows(screen);
    expect(rows.length).toBeGreaterThan(0);
    for (const [i, row] of rows.entries()) {
      // Each row shows the start of its title (at least its first word).
      expect(
        names.some((n) => row.includes(n.split(" ")[0] as string)),
        `row ${i}: ${row}`,
      ).toBe(true);
    }
    expect(screen.split("\n")[1]).toMatch(/^ usr_\w+ \(owner/);
    expect(screen.split("\n")[2]).toMatch(/^[┌╔]/);

    // 100 columns, two panes side by side: each title keeps state and connection in sight.
    await pane.resize(100, 30);
    // (A session that waits for you has ⚠ before its number.) Both streams live: on a loaded
    // machine the second may still be connecting when the first is.
    const title2Of = (s: string) => lineWith(s, /[─━] (?:⚠ (?:[a-z]+ )+)?2 /) ?? "";
    screen = await pane.waitFor(
      "narrow pane titles",
      (s) => /═ 1 ● active · ● live/.test(s) && /2 [●⏸◌◆] \w+ · ● live/.test(title2Of(s)),
    );
    expect(title2Of(screen)).toMatch(/2 [●⏸◌◆] \w+ · ● live/);

    // The smallest terminal: the header is two lines, not five.
    await pane.resize(60, 15);
    screen = await pane.waitFor("60×15", (s) => s.startsWith(" agent-sessions"));
    expect(screen.split("\n")[2]).toMatch(/^[┌╔]/);

    await pane.keys("q");
    await expectRestored(pane);
  });

  it("obeys every key of a run that arrives in one read (key repeat, a slow link)", async () => {
    const pane = await launch([]);
    const cursorRow = (s: string) => s.split("\n").findIndex((l) => /^[│║]▸/.test(l));
    const first = await pane.waitFor("the session list", (s) => /Sessions 6\/6/.test(s));
    const start = cursorRow(first);
    expect(start).toBeGreaterThan(0);
    // One send-keys -l is one write to the terminal: "jjj" reaches the app in one read.
    await pane.type("jjj");
    await pane.waitFor("the cursor three rows down", (s) => cursorRow(s) === start + 3);
    await pane.type("kk");
    await pane.waitFor("the cursor one row below the top", (s) => cursorRow(s) === start + 1);
    await pane.keys("q");
    await expectRestored(pane);
  });

  it("e saves the pane into the state directory, not the working directory, and says where", async () => {
    const id = ids[1] as string;
    const state = join(home.dir, "state");
    const pane = await launch(["open", id], { env: { XDG_STATE_HOME: state } });
    await pane.waitFor("the pane live", (s) => /● live/.test(lineWith(s, titleRe(1, id)) ?? ""));
    server.emit(id, "process_output", { text: "E2E-EXPORT-line\n" });
    await pane.waitForText("E2E-EXPORT-line");
    const before = readdirSync(process.cwd()).filter((f) => f.endsWith(".ndjson"));
    await pane.keys("e");
    const screen = await pane.waitForText("Saved ");
    const dir = join(state, "agent-sessions", "exports");
    // The status line names where (cut at the line's end when the path is long).
    expect(screen).toContain(`to ${dir.slice(0, 24)}`);
    const saved = readdirSync(dir).filter((f) => f.endsWith(".ndjson"));
    expect(saved).toHaveLength(1);
    const path = join(dir, saved[0] as string);
    expect(readFileSync(path, "utf8")).toContain("E2E-EXPORT-line");
    expect(readdirSync(process.cwd()).filter((f) => f.endsWith(".ndjson"))).toEqual(before);
    await pane.keys("q");
    await expectRestored(pane);
  });

  it("Ctrl-C exits from inside a dialog and restores the terminal", async () => {
    const id = ids[0] as string;
    const pane = await launch(["open", id]);
    await pane.waitFor("the pane", (s) => titleRe(1, id).test(s));
    await pane.keys("c");
    await pane.waitForText("Clone a repository");
    await pane.keys("C-c");
    await expectRestored(pane);
  });

  it.runIf(process.platform === "linux")(
    "SIGTERM ends the app and restores the terminal",
    async () => {
      const id = ids[0] as string;
      const pane = await launch(["open", id]);
      await pane.waitFor("the pane live", (s) => /● live/.test(lineWith(s, titleRe(1, id)) ?? ""));
      expect(await pane.format("#{alternate_on}")).toBe("1");
      process.kill(await appPid(pane), "SIGTERM");
      await expectRestored(pane);
      await expectEcho(pane);
    },
  );

  it.runIf(process.platform === "linux")(
    "a crash (an uncaught error) restores the terminal and leaves the error readable",
    async () => {
      const id = ids[0] as string;
      // A test-only module loaded before the CLI: an error thrown where nothing catches it.
      const crash = `data:text/javascript,process.on("SIGUSR2", () => { throw new Error("E2E-CRASH"); });`;
      const pane = await launch(["open", id], { nodeArgs: ["--import", crash] });
      await pane.waitFor("the pane live", (s) => /● live/.test(lineWith(s, titleRe(1, id)) ?? ""));
      // Crash while events pour in, so a frame is always about to be drawn: it must land on the
      // alternate screen (or nowhere), never on the user's screen after it was given back.
      const flood = server.flood([id], 2000, 4000);
      await pane.waitForText("flood");
      process.kill(await appPid(pane), "SIGUSR2");
      const screen = await expectRestored(pane, 1);
      await flood;
      expect(screen).toContain("Error: E2E-CRASH");
      await expectEcho(pane);
    },
  );

  it("rings the terminal bell when a session fails, unless AGENT_SESSIONS_BELL=0", async () => {
    const id = ids[2] as string;
    server.setState(id, "active");
    // Nothing set: the documented default rings. (launch() turns the bell off for the others.)
    const ringing = await launch(["open", id], { env: { AGENT_SESSIONS_BELL: undefined } });
    const quiet = await launch(["open", id], { env: { AGENT_SESSIONS_BELL: "0" } });
    const live = (s: string) => /● live/.test(lineWith(s, titleRe(1, id)) ?? "");
    await ringing.waitFor("the pane live", live);
    await quiet.waitFor("the pane live", live);
    server.setState(id, "error");
    await ringing.waitForText(`⚠ failed 1 ${id}`);
    await quiet.waitForText(`⚠ failed 1 ${id}`);
    // tmux raises the window's bell flag when the bell character reaches the terminal.
    for (let i = 0; i < 100 && (await ringing.format("#{window_bell_flag}")) !== "1"; i++) {
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(await ringing.format("#{window_bell_flag}")).toBe("1");
    expect(await quiet.format("#{window_bell_flag}")).toBe("0");
    server.setState(id, "active");
    for (const pane of [ringing, quiet]) {
      await pane.keys("q");
      await expectRestored(pane);
    }
  });

  it("keeps escape sequences in process output away from the terminal", async () => {
    const id = ids[1] as string;
    const pane = await launch(["open", id]);
    await pane.waitFor("the pane live", (s) => /● live/.test(lineWith(s, titleRe(1, id)) ?? ""));
    expect(await tmux.run(["show-options", "-s", "-v", "set-clipboard"])).toBe("on\n");
    const titleBefore = await pane.format("#{pane_title}");
    const clip = Buffer.from("E2E-CLIPBOARD").toString("base64");
    server.emit(id, "process_output", {
      text:
        `E2E-ESC-START\u001b]2;E2E-PWNED-TITLE\u0007\u001b]52;c;${clip}\u0007` +
        "\u001b[2J\u001b[H\u001b[5;5H\u001b[?1049l E2E-ESC-END \u001b[31mE2E-RED\u001b[0m\n",
    });
    const screen = await pane.waitForText("E2E-ESC-END");
    expect(screen).toMatch(/^╭/);
    expect(await pane.format("#{pane_title}")).toBe(titleBefore);
    expect(await pane.format("#{alternate_on}")).toBe("1");
    expect(await tmux.run(["list-buffers"])).toBe("");
    // SGR colour is the one kind of escape kept.
    const coloured = await pane.capture({ ansi: true });
    expect(lineWith(coloured, "E2E-RED")).toMatch(/\u001b\[(?:[0-9;]*;)?31m[^\u001b]*E2E-RED/);

    await pane.keys("q");
    await expectRestored(pane);
  });

  it("works through HTTP_PROXY for a host only the proxy resolves: identity, list and a live pane", async () => {
    const host = "sessions.behind-proxy.test";
    const proxy = await startProxy({ [host]: "127.0.0.1" });
    try {
      const id = ids[0] as string;
      const pane = await launch(["open", id], {
        env: { AGENT_SESSIONS_BASE_URL: `http://${host}:${server.port}`, HTTP_PROXY: proxy.url },
      });
      const screen = await pane.waitFor(
        "the identity, the list and the live pane",
        (t) =>
          titleRe(1, id).test(t) &&
          t.includes("● live") &&
          t.includes("effective:") &&
          /Sessions \d+\/\d+/.test(t),
      );
      // No connection error anywhere (a failed session in the list has its own ✗).
      expect(screen).not.toMatch(
        /could not reach|connection refused|proxy .*(refused|reset|closed)/,
      );
      // Everything went through the proxy: the list, the record and the event stream.
      expect(
        proxy.seen.some((l) => l.startsWith(`GET http://${host}:${server.port}/api/sessions`)),
      ).toBe(true);
      expect(proxy.seen.some((l) => l.includes(`/sessions/${id}/events`))).toBe(true);
      await pane.keys("q");
      await expectRestored(pane);
    } finally {
      await proxy.close();
    }
  });

  it("NO_COLOR: the screen carries no colour codes (attributes only)", async () => {
    const id = ids[0] as string;
    const coloured = await launch(["open", id]);
    const plain = await launch(["open", id], { env: { NO_COLOR: "1" } });
    const ready = (s: string) => titleRe(1, id).test(s) && s.includes("● live");
    await coloured.waitFor("the pane", ready);
    await plain.waitFor("the pane", ready);
    // The same screen without NO_COLOR does carry colours: the check below can fail.
    expect(colourCodes(await coloured.capture({ ansi: true })).length).toBeGreaterThan(0);
    const screen = await plain.capture({ ansi: true });
    expect(colourCodes(screen)).toEqual([]);
    // Attributes stay: the focused pane's title is still bold.
    expect(screen).toContain("\u001b[1m");
    await plain.keys("q");
    await expectRestored(plain);
  });

  it("TERM=dumb and a locale without UTF-8 get ASCII borders and glyphs; TERM=dumb keeps the normal screen", async () => {
    const id = ids[0] as string;
    const nonAscii = (screen: string) => screen.replace(/[\u0000-\u007f]/g, "");
    // A pane that needs you names the reason before its number: "! finished 1 ses_…".
    const title = new RegExp(`[-=] (?:! (?:[a-z]+ )+)?1 ${id} \\* \\w+ \\. \\* live`);

    const c = await launch(["open", id], { env: { LANG: "C", LC_ALL: undefined } });
    let screen = await c.waitFor("the pane in ASCII", (s) => title.test(s));
    expect(nonAscii(screen)).toBe("");
    // Focused pane: # corners and = lines; the header and list: + corners and - lines.
    expect(screen).toMatch(/^\+-+\+/);
    expect(screen).toMatch(/#= (?:! (?:[a-z]+ )+)?1 ses_/);
    expect(await c.format("#{alternate_on}")).toBe("1");
    await c.keys("q");
    await expectRestored(c);

    const dumb = await launch(["open", id], { env: { TERM: "dumb" } });
    screen = await dumb.waitFor("the pane in ASCII", (s) => title.test(s));
    expect(nonAscii(screen)).toBe("");
    expect(await dumb.format("#{alternate_on}")).toBe("0");
    await dumb.keys("q");
    const after = await dumb.waitForText("EXIT=");
    expect(after).toMatch(/EXIT=0\b/);
  });

  it("`fleet` opens on the fleet view; Enter opens a pane, T merges the streams, A shows the queue", async () => {
    const pane = await launch(["fleet"]);
    await pane.waitForText("Fleet ");
    // Failed and destroyed sessions too (D): the service hides them unless asked.
    await pane.keys("D");
    const table = await pane.waitFor(
      "the fleet table with its rows streaming",
      (s) =>
        /Fleet \d+\/\d+ · streams ([1-9]\d*) live of \1 \(cap 50\)/.test(s) &&
        ids.every((id) => s.includes(id)),
    );
    expect(table).toMatch(
      /state\s+session\s+name\s+agent\s+(repository\s+)?activity\s+ev\/min 10m\s+files\s+current step/,
    );
    for (const id of ids) expect(table).toContain(id);
    const first = ids[0] as string;

    // The merged timeline tags every line with its session.
    server.emit(first, "process_output", { text: "E2E-MERGED-line\n" });
    await pane.keys("T");
    const merged = await pane.waitForText(["Merged timeline", "E2E-MERGED-line"]);
    expect(lineWith(merged, "E2E-MERGED-line")).toContain(first);
    await pane.keys("Escape");
    await pane.waitForText("Sessions");

    // The attention queue, then back to the fleet and into a pane.
    await pane.keys("A");
    await pane.waitForText("Attention ·");
    await pane.keys("Escape");
    // Closed before the next key: an Escape and a `v` read together are Alt-v.
    await pane.waitFor("the queue closed", (s) => !s.includes("Attention ·"));
    await pane.keys("v");
    const fleet = await pane.waitForText("Fleet ");
    const chosen = /(ses_\w+)/.exec(lineWith(fleet, "▸") ?? "")?.[1] as string;
    expect(ids).toContain(chosen);
    await pane.keys("Enter");
    await pane.waitFor("the row's pane", (s) => titleRe(1, chosen).test(s));
    await pane.keys("q");
    await expectRestored(pane);
  });

  it("`demo` opens the UI against its own in-process service", async () => {
    // Seeded like this suite's service, on a clock nothing advances: the same sessions, still.
    const pane = await launch(["demo", "--seed", "7", "--clock", "manual"], {
      env: { AGENT_SESSIONS_BASE_URL: undefined, AGENT_SESSIONS_API_KEY: undefined },
    });
    const screen = await pane.waitFor("the demo live", (s) => /● live 2\/2/.test(s), {
      timeoutMs: 15_000,
    });
    expect(screen).toMatch(/profile: demo · http:\/\/127\.0\.0\.1:\d+/);
    // The demo's two pending approvals wait on its first session (a narrow pane puts the
    // state before the id, and cuts the id); the second is this suite's second session.
    expect(screen).toMatch(/[─═━] ⚠ awaiting approval 1 ● active · ● live · s/u);
    expect(screen).toMatch(titleRe(2, ids[1] as string));
    expect(screen).not.toContain(server.url);
    await pane.keys("q");
    await expectRestored(pane);
  });

  it.runIf(process.platform === "linux")(
    "with no key and no keychain, the login screen names the two ways out",
    async () => {
      const config = tempConfigHome();
      try {
        // env -i: no DBUS_SESSION_BUS_ADDRESS and no XDG_RUNTIME_DIR, so no Secret Service.
        const pane = await launch([], {
          env: { AGENT_SESSIONS_API_KEY: undefined, XDG_CONFIG_HOME: config.dir },
        });
        const screen = await pane.waitForText(["sign in", "No keychain here"]);
        const text = screen.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
        expect(text).toContain("Set AGENT_SESSIONS_API_KEY for this shell");
        expect(text).toContain("agent-sessions login --insecure-storage");
        // The paste is not refused: the screen asks where the key goes, and r signs in for
        // this run only, writing nothing.
        const key = server.key("owner");
        await pane.type(key);
        await pane.waitForText(`${Array.from(key).length} characters`);
        await pane.keys("Enter");
        await pane.waitForText(["use it for this run only", "plain-text file"]);
        await pane.keys("r");
        const main = await pane.waitForText(['key "demo-owner"', "Sessions"]);
        expect(main).not.toContain(key);
        expect(existsSync(join(config.dir, "agent-sessions"))).toBe(false);
        await pane.keys("q");
        await expectRestored(pane);
      } finally {
        config.cleanup();
      }
    },
  );

  it("a key the service refuses opens the sign-in screen with the refusal, not an empty list", async () => {
    const pane = await launch([], {
      env: { AGENT_SESSIONS_API_KEY: `ask_${"r".repeat(30)}` },
    });
    const screen = await pane.waitForText(["sign in", "The service refused the key in"]);
    const text = screen.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
    expect(text).toContain("AGENT_SESSIONS_API_KEY still wins in later runs");
    expect(text).not.toContain("no sessions");
    expect(text).not.toContain("r".repeat(30));
    await pane.keys("Escape");
    await expectRestored(pane);
  });

  it.runIf(noKeychain !== null && keychainRequired)(
    "a real keychain is reachable for the login test (AGENT_SESSIONS_REQUIRE_KEYCHAIN=1)",
    () => {
      throw new Error(`no usable OS keychain: ${noKeychain}`);
    },
  );

  it.skipIf(noKeychain !== null)(
    "with no key stored, the login screen takes a pasted key, verifies it and keeps it in the keychain",
    async () => {
      const config = tempConfigHome();
      const account = keychainAccount("default", server.url);
      const key = server.key("owner");
      const env = {
        AGENT_SESSIONS_API_KEY: undefined,
        XDG_CONFIG_HOME: config.dir,
        DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS,
      };
      try {
        const pane = await launch([], { env });
        await pane.waitForText(["sign in", "No API key is stored", server.url]);

        // A key the service refuses: the error is shown and nothing is stored.
        // Each step waits for the screen: text and Enter arriving in one read are one input
        // event for Ink, and the Enter in it is dropped.
        const wrong = `ask_${"x".repeat(26)}`;
        expect(wrong.length).not.toBe(key.length);
        await pane.type(wrong);
        await pane.waitForText(`${wrong.length} characters`);
        await pane.keys("Enter");
        await pane.waitFor("the refusal", (s) => /rejected|refused|invalid|401/i.test(s));
        expect(await keychainGet(account)).toBeNull();

        await pane.keys("C-u");
        await pane.waitFor("an empty field", (s) => !s.includes("characters"));
        await pane.type(key);
        const typed = await pane.waitForText(`${Array.from(key).length} characters`);
        expect(typed).not.toContain(key);
        expect(typed).not.toContain(key.slice(4, 20));
        await pane.keys("Enter");
        const main = await pane.waitForText(['key "demo-owner"', "effective:", "Sessions"]);
        expect(main).not.toContain(key);
        expect(await keychainGet(account)).toBe(key);
        await pane.keys("q");
        await expectRestored(pane);

        // The next start finds the stored key and goes straight to the main screen.
        const again = await launch([], { env });
        const screen = await again.waitForText(['key "demo-owner"', "Sessions"]);
        expect(screen).not.toContain("sign in");
        await again.keys("q");
        await expectRestored(again);
      } finally {
        await keychainDelete(account).catch(() => {});
        config.cleanup();
      }
    },
  );
});
