import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, it } from "vitest";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { CLI, tempConfigHome } from "./cli.js";

/**
 * A private tmux server (its own socket, no user config) for driving the built binary in a
 * real terminal. Every call is asynchronous so a reference service running in the test
 * process keeps answering while tmux is asked about the screen.
 */

export function tmuxVersion(): string | null {
  const r = spawnSync("tmux", ["-V"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

/**
 * tmux's version for a suite that drives a real terminal, or null when tmux is missing: the
 * suite is then skipped with a warning, unless AGENT_SESSIONS_REQUIRE_TMUX=1 (set by .ci/run),
 * where the missing tmux is a failing test instead of a silent skip.
 * (CI=true cannot be the signal: test/setup.ts deletes it for the UI tests.)
 */
export function tmuxForSuite(suite: string): string | null {
  const version = tmuxVersion();
  if (version) return version;
  if (process.env.AGENT_SESSIONS_REQUIRE_TMUX === "1") {
    it(`tmux is installed for the ${suite} (AGENT_SESSIONS_REQUIRE_TMUX=1)`, () => {
      throw new Error(`tmux is not installed (tmux -V failed), so the ${suite} cannot run`);
    });
  } else {
    console.warn(`${suite} skipped: tmux is not installed (CI installs it)`);
  }
  return null;
}

/** Single-quotes a word for sh. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `env -i NAME=value … argv` for sh: the program sees only these variables (no CI, NO_COLOR
 * or FORCE_COLOR leaking in from the test runner). TERM is the one tmux gives the pane.
 */
export function cleanEnvCommand(env: Record<string, string | undefined>, argv: string[]): string {
  const vars = Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${shellQuote(v)}`);
  return ["env", "-i", 'TERM="$TERM"', ...vars, ...argv.map(shellQuote)].join(" ");
}

export interface WaitOptions {
  timeoutMs?: number;
  /** Capture with colours and attributes (`capture-pane -e`). */
  ansi?: boolean;
}

const POLL_MS = 40;

export class TmuxServer {
  /** Its own socket; a suite that drives tmux itself names the one it started. */
  constructor(readonly socket = `as-e2e-${process.pid}-${randomBytes(3).toString("hex")}`) {}

  /** Runs a tmux command on this server; rejects with tmux's message. */
  run(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        "tmux",
        ["-u", "-L", this.socket, "-f", "/dev/null", ...args],
        { encoding: "utf8", timeout: 10_000, env: { ...process.env, LANG: "C.UTF-8" } },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`tmux ${args.join(" ")}: ${stderr.trim() || error.message}`));
          else resolve(stdout);
        },
      );
    });
  }

  /** A detached session of the given size running `command` (a sh command line). */
  async start(
    name: string,
    command: string,
    size: { width: number; height: number },
  ): Promise<TmuxPane> {
    await this.run([
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(size.width),
      "-y",
      String(size.height),
      command,
    ]);
    return new TmuxPane(this, name);
  }

  /**
   * The processes running in the panes (`target`: one session; all when absent), with every
   * process they started.
   */
  async processes(target?: string): Promise<number[]> {
    const out = await this.run([
      "list-panes",
      ...(target === undefined ? ["-a"] : ["-s", "-t", target]),
      "-F",
      "#{pane_pid}",
    ]).catch(() => "");
    return processTree(
      out
        .split("\n")
        .filter((l) => /^\d+$/.test(l))
        .map(Number),
    );
  }

  /**
   * Ends the server and every process in it, waits until they have exited, and removes its
   * socket file (tmux leaves it). A process told to hang up (the UI) still finishes its exit
   * (it flushes its journal into the test's folders): a folder removed before that is made
   * again behind the test's back.
   */
  async kill(): Promise<void> {
    const pids = await this.processes();
    await this.run(["kill-server"]).catch(() => {});
    await waitForExit(pids);
    const dir = join(process.env.TMUX_TMPDIR ?? "/tmp", `tmux-${process.getuid?.() ?? 0}`);
    rmSync(join(dir, this.socket), { force: true });
  }
}

/**
 * The terminal of a suite that runs the built CLI against its services: a private tmux server
 * that outlives the sessions each test kills (exit-empty off), and a config home that is the
 * CLI's HOME there. `start()` in beforeAll (it fails at once when the CLI is not built),
 * `closePanes()` in afterEach, `stop()` in afterAll (the panes' processes have exited before
 * the config home goes).
 */
export class CliTerminal {
  readonly tmux = new TmuxServer();
  readonly home = tempConfigHome();
  private readonly panes: TmuxPane[] = [];

  async start(): Promise<void> {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    await this.tmux.run(["start-server", ";", "set-option", "-s", "exit-empty", "off"]);
  }

  /** A pane of its own running `command` (a sh command line), until closePanes. */
  async open(name: string, command: string, size: { width: number; height: number }) {
    const pane = await this.tmux.start(name, command, size);
    this.panes.push(pane);
    return pane;
  }

  /**
   * A pane running the built CLI with `args` (`command`), which says its exit status when it
   * ends and stays open for the test to read; `cd` first, when given.
   */
  openApp(
    name: string,
    command: string,
    size: { width: number; height: number },
    opts: { cd?: string } = {},
  ): Promise<TmuxPane> {
    const cd = opts.cd === undefined ? "" : `cd ${shellQuote(opts.cd)} && `;
    return this.open(name, `${cd}${command}; echo "EXIT=$?"; exec sleep 600`, size);
  }

  /** Kills the panes opened so far and waits until what ran in them has exited. */
  async closePanes(): Promise<void> {
    await Promise.all(this.panes.splice(0).map((p) => p.kill()));
  }

  async stop(): Promise<void> {
    await this.closePanes();
    await this.tmux.kill();
    this.home.cleanup();
  }

  /**
   * `env -i …` running the built CLI with `args` against `baseUrl` with `apiKey` (none when
   * undefined), with PATH, a UTF-8 locale and the config home, then `extra`: a sh command
   * line for a pane.
   */
  command(
    baseUrl: string,
    apiKey: string | undefined,
    args: string[],
    extra: Record<string, string | undefined> = {},
  ): string {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: this.home.dir,
      LANG: "C.UTF-8",
      XDG_CONFIG_HOME: this.home.dir,
      AGENT_SESSIONS_BASE_URL: baseUrl,
      AGENT_SESSIONS_API_KEY: apiKey,
      ...extra,
    };
    return cleanEnvCommand(env, [process.execPath, CLI, ...args]);
  }
}

/**
 * In a describe body: a CliTerminal and a reference service (startServer with `opts`) for its
 * tests, both started before the first, the panes killed after each, both stopped after the
 * last. `server` is there once the suite has started (in hooks and tests).
 */
export function terminalOnReference(opts: ServerOptions): {
  terminal: CliTerminal;
  readonly server: ReferenceServer;
} {
  const terminal = new CliTerminal();
  let server: ReferenceServer | null = null;
  beforeAll(async () => {
    await terminal.start();
    server = await startServer(opts);
  });
  afterEach(() => terminal.closePanes());
  afterAll(async () => {
    await terminal.stop();
    await server?.close();
  });
  return {
    terminal,
    get server(): ReferenceServer {
      if (server === null) throw new Error("the suite's reference service has not started");
      return server;
    },
  };
}

export class TmuxPane {
  constructor(
    private readonly server: TmuxServer,
    readonly name: string,
  ) {}

  /** The visible screen as text, one line per row (trailing blanks trimmed by tmux). */
  capture(opts: { ansi?: boolean } = {}): Promise<string> {
    return this.server.run(["capture-pane", "-p", ...(opts.ansi ? ["-e"] : []), "-t", this.name]);
  }

  /** Key names as tmux knows them (Enter, Escape, C-c, q …). */
  async keys(...keys: string[]): Promise<void> {
    await this.server.run(["send-keys", "-t", this.name, ...keys]);
  }

  /** Literal text, as if typed or pasted. */
  async type(text: string): Promise<void> {
    await this.server.run(["send-keys", "-t", this.name, "-l", text]);
  }

  async resize(width: number, height: number): Promise<void> {
    await this.server.run([
      "resize-window",
      "-t",
      this.name,
      "-x",
      String(width),
      "-y",
      String(height),
    ]);
  }

  /** A tmux format about the pane, e.g. `#{alternate_on}`. */
  async format(fmt: string): Promise<string> {
    return (await this.server.run(["display-message", "-p", "-t", this.name, fmt])).trim();
  }

  /**
   * Polls the screen until `test` holds and returns that screen; fails after the timeout
   * with what the screen showed last.
   */
  async waitFor(
    what: string,
    test: (screen: string) => boolean,
    opts: WaitOptions = {},
  ): Promise<string> {
    const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
    let screen = "";
    for (;;) {
      screen = await this.capture({ ansi: opts.ansi ?? false });
      if (test(screen)) return screen;
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
  }

  /** Waits until the screen contains every one of `texts`. */
  waitForText(texts: string | string[], opts: WaitOptions = {}): Promise<string> {
    const list = typeof texts === "string" ? [texts] : texts;
    return this.waitFor(
      list.map((t) => JSON.stringify(t)).join(" and "),
      (s) => list.every((t) => s.includes(t)),
      opts,
    );
  }

  /** Closes the pane's session and waits until what ran in it has exited (TmuxServer.kill). */
  async kill(): Promise<void> {
    const pids = await this.server.processes(this.name);
    await this.server.run(["kill-session", "-t", this.name]).catch(() => {});
    await waitForExit(pids);
  }
}

/** `roots` and every process they started, as /proc tells it now (Linux; elsewhere `roots`). */
function processTree(roots: number[]): number[] {
  const all: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (all.includes(pid)) continue;
    all.push(pid);
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
      if (children !== "") queue.push(...children.split(/\s+/).map(Number));
    } catch {
      // gone already, or no /proc here
    }
  }
  return all;
}

/** Whether a process is still running (a zombie has exited; no /proc here: taken as gone). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits until every one of `pids` has exited; fails loudly after 10 s naming those left. */
async function waitForExit(pids: number[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const left = pids.filter(running);
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`processes still running after their tmux session ended: ${left.join(", ")}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
