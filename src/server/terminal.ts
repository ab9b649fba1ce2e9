/**
 * Session terminals of the reference service: WebSocket tokens and the terminal WebSocket
 * (websockets/terminal.mdx), backed by a real shell in the session's workspace directory.
 *
 * - Tokens: 5 minutes, one session and one capability, on the simulator's clock (a manual
 *   clock in deterministic mode, so a test expires one by advancing it).
 * - The shell runs through a pseudo-terminal made by util-linux `script(1)` where it is
 *   installed (line editing, `top`, `less`, a resize honoured with `stty` on the pty), else
 *   through plain pipes. It lives as long as the session's terminal is used: a connection that
 *   drops and comes back (with a new token) finds the same shell.
 * - Close codes: 4001 for a bad or expired token, 4004 for an unknown session, 4009 when a
 *   second connection takes the terminal (the first is closed) or the session is not active,
 *   1000 with a reason when the shell exits or no input came for the idle timeout.
 * - Text frames both ways, binary frames accepted as input; JSON control messages: `resize`
 *   and `ping` from the client, `connected` and `pong` from here.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readlinkSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import {
  IDLE_CLOSE_REASON,
  parseControl,
  TERMINAL_CLOSE,
  TERMINAL_IDLE_MS,
  WS_TOKEN_TTL_MS,
  type WsCapability,
} from "../protocol/terminal.js";
import type { Clock } from "./clock.js";
import type { SessionTable } from "./sessionTable.js";

/** States in which a session's sandbox runs and its terminal can be opened. */
const OPEN_STATES = new Set(["active", "running"]);
/** Output queued on a slow connection before the shell is paused until it drains. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** The longest input and resizes wait for a new shell's first output. */
const READY_WAIT_MS = 3000;
const TERMINAL_PATH = /^\/api(?:\/cloud)?\/sessions\/([^/]+)\/terminal$/;

export interface TerminalOptions {
  store: SessionTable;
  dataDir: string;
  clock: Clock;
  /** Close a connection with no input for this long (default 10 minutes, as documented). */
  idleMs?: number;
  /** The path the API's routes see (the mount); throws when it is not served. */
  routePath: (path: string) => string;
  log?: (line: string) => void;
}

interface Token {
  sessionId: string;
  capability: WsCapability;
  expiresAt: number;
}

/** One session's shell and the connection using it. */
interface Shell {
  sessionId: string;
  proc: ChildProcess;
  pty: boolean;
  conn: WebSocket | null;
  decoder: StringDecoder;
  idle: unknown;
  /** Input and resizes in arrival order: input after a resize waits for the pty to have it. */
  queue: Promise<void>;
}

/** Whether util-linux script(1) is here to make a pseudo-terminal. */
function hasScript(): boolean {
  if (process.platform !== "linux") return false;
  const r = spawnSync("script", ["--version"], { encoding: "utf8" });
  return r.status === 0 && /util-linux/.test(r.stdout + r.stderr);
}

function shellPath(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

export class Terminals {
  readonly #opts: TerminalOptions;
  readonly #tokens = new Map<string, Token>();
  readonly #shells = new Map<string, Shell>();
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  readonly #idleMs: number;
  #pty: boolean | undefined;
  #closed = false;

  constructor(opts: TerminalOptions) {
    this.#opts = opts;
    this.#idleMs = opts.idleMs ?? TERMINAL_IDLE_MS;
  }

  canOpen(state: string): boolean {
    return OPEN_STATES.has(state);
  }

  issueToken(sessionId: string, capability: WsCapability): { token: string; expires_at: string } {
    const now = this.#opts.clock.now();
    for (const [t, v] of this.#tokens) if (v.expiresAt <= now) this.#tokens.delete(t);
    const token = `wst_${randomBytes(24).toString("base64url")}`;
    const expiresAt = now + WS_TOKEN_TTL_MS;
    this.#tokens.set(token, { sessionId, capability, expiresAt });
    return { token, expires_at: new Date(expiresAt).toISOString() };
  }

  /** Open terminal connections (tests). */
  connections(): number {
    let n = 0;
    for (const s of this.#shells.values()) if (s.conn) n++;
    return n;
  }

  /** The HTTP server's `upgrade` event. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://localhost");
    let m: RegExpExecArray | null = null;
    try {
      m = TERMINAL_PATH.exec(this.#opts.routePath(url.pathname));
    } catch {
      m = null;
    }
    if (!m || this.#closed) {
      socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    let sessionId: string;
    try {
      sessionId = decodeURIComponent(m[1] ?? "");
    } catch {
      sessionId = "";
    }
    const token = url.searchParams.get("token") ?? "";
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, sessionId, token));
  }

  #accept(ws: WebSocket, sessionId: string, token: string): void {
    const t = this.#tokens.get(token);
    if (
      !t ||
      t.expiresAt <= this.#opts.clock.now() ||
      t.sessionId !== sessionId ||
      t.capability !== "terminal"
    ) {
      ws.close(TERMINAL_CLOSE.badToken, "Invalid or expired token");
      return;
    }
    const s = this.#opts.store.get(sessionId);
    if (!s) {
      ws.close(TERMINAL_CLOSE.notFound, "Session not found");
      return;
    }
    if (!this.canOpen(s.record.state)) {
      ws.close(TERMINAL_CLOSE.taken, "Session is not active");
      return;
    }
    let shell = this.#shells.get(sessionId);
    if (shell?.conn) {
      shell.conn.close(TERMINAL_CLOSE.taken, "Another connection took this terminal");
      shell.conn = null;
    }
    shell ??= this.#startShell(sessionId);
    shell.conn = ws;
    this.#opts.log?.(`terminal ${sessionId} connected (${shell.pty ? "pty" : "pipes"})`);
    ws.send(JSON.stringify({ type: "connected", session_id: sessionId, pty: shell.pty }));
    this.#touch(shell);
    const own = shell;
    ws.on("message", (data: RawData, isBinary: boolean) => this.#input(own, ws, data, isBinary));
    ws.on("close", () => {
      if (own.conn === ws) own.conn = null;
      if (own.proc.stdout?.isPaused()) own.proc.stdout.resume();
    });
    ws.on("error", () => ws.terminate());
  }

  #input(shell: Shell, ws: WebSocket, data: RawData, isBinary: boolean): void {
    if (shell.conn !== ws) return;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (!isBinary) {
      const ctl = parseControl(buf.toString("utf8"));
      if (ctl?.type === "resize") {
        shell.queue = shell.queue.then(() => resizePty(shell, ctl.cols, ctl.rows));
        return;
      }
      if (ctl?.type === "ping") {
        ws.send(JSON.stringify({ type: "pong" }));
        return;
      }
      if (ctl) return;
    }
    // Only input keeps a terminal open, as documented: control messages do not.
    this.#touch(shell);
    shell.queue = shell.queue.then(() => {
      shell.proc.stdin?.write(buf);
    });
  }

  #touch(shell: Shell): void {
    const clock = this.#opts.clock;
    if (shell.idle !== undefined) clock.cancel(shell.idle);
    shell.idle = clock.schedule(() => {
      shell.idle = undefined;
      shell.conn?.close(TERMINAL_CLOSE.normal, IDLE_CLOSE_REASON);
      this.#stopShell(shell);
    }, this.#idleMs);
  }

  #startShell(sessionId: string): Shell {
    const cwd = join(this.#opts.dataDir, "workspaces", sessionId);
    mkdirSync(cwd, { recursive: true });
    this.#pty ??= hasScript();
    const sh = shellPath();
    const interactive = sh.endsWith("bash") ? `${sh} --norc --noprofile -i` : `${sh} -i`;
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      TERM: "xterm-256color",
      LANG: process.env.LANG ?? "C.UTF-8",
      PS1: "$ ",
    };
    const proc = this.#pty
      ? // The pty starts at 80x24; a resize from the client changes it with stty.
        spawn(
          "script",
          ["-qfc", `stty cols 80 rows 24 2>/dev/null; exec ${interactive}`, "/dev/null"],
          {
            cwd,
            env,
            stdio: ["pipe", "pipe", "pipe"],
            detached: true,
          },
        )
      : spawn(sh, ["-i"], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const shell: Shell = {
      sessionId,
      proc,
      pty: this.#pty,
      conn: null,
      decoder: new StringDecoder("utf8"),
      idle: undefined,
      queue: Promise.resolve(),
    };
    // Input and resizes wait for the shell's first output (its prompt): before it, the
    // start-up `stty` could undo a resize, and /proc may not show the shell's pty yet. A shell
    // that prints nothing is waited on for at most READY_WAIT_MS.
    let ready: () => void = () => undefined;
    shell.queue = new Promise<void>((done) => {
      const t = setTimeout(done, READY_WAIT_MS);
      t.unref();
      ready = () => {
        clearTimeout(t);
        done();
      };
    });
    this.#shells.set(sessionId, shell);
    const out = (chunk: Buffer) => {
      ready();
      this.#output(shell, chunk);
    };
    proc.stdout?.on("data", out);
    proc.stderr?.on("data", out);
    proc.stdin?.on("error", () => undefined);
    proc.on("error", () => this.#stopShell(shell));
    proc.on("exit", () => {
      ready();
      if (this.#shells.get(sessionId) === shell) this.#shells.delete(sessionId);
      if (shell.idle !== undefined) this.#opts.clock.cancel(shell.idle);
      shell.conn?.close(TERMINAL_CLOSE.normal, "The shell exited");
      shell.conn = null;
    });
    return shell;
  }

  #output(shell: Shell, chunk: Buffer): void {
    const ws = shell.conn;
    // Output with nobody attached is not kept: the next connection sees the shell from then on.
    if (!ws || ws.readyState !== ws.OPEN) return;
    const text = shell.decoder.write(chunk);
    if (text === "") return;
    ws.send(text);
    if (ws.bufferedAmount > HIGH_WATER_BYTES && shell.proc.stdout) {
      // A slow reader pauses the shell instead of growing this process without bound.
      const stdout = shell.proc.stdout;
      stdout.pause();
      const drained = () => {
        if (ws.readyState !== ws.OPEN || ws.bufferedAmount <= HIGH_WATER_BYTES / 4) {
          stdout.resume();
          return;
        }
        setTimeout(drained, 10).unref();
      };
      setTimeout(drained, 10).unref();
    }
  }

  #stopShell(shell: Shell): void {
    if (this.#shells.get(shell.sessionId) === shell) this.#shells.delete(shell.sessionId);
    if (shell.idle !== undefined) this.#opts.clock.cancel(shell.idle);
    shell.idle = undefined;
    const pid = shell.proc.pid;
    if (pid !== undefined && shell.proc.exitCode === null) {
      try {
        // The whole group: script, the shell and whatever runs in it.
        process.kill(-pid, "SIGKILL");
      } catch {
        shell.proc.kill("SIGKILL");
      }
    }
  }

  /** Close every connection and end every shell. */
  async close(): Promise<void> {
    this.#closed = true;
    const exits: Promise<void>[] = [];
    for (const shell of [...this.#shells.values()]) {
      shell.conn?.terminate();
      shell.conn = null;
      if (shell.proc.exitCode === null && shell.proc.signalCode === null) {
        exits.push(new Promise((done) => shell.proc.once("exit", () => done())));
      }
      this.#stopShell(shell);
    }
    await Promise.all(exits);
    await new Promise<void>((done) => this.#wss.close(() => done()));
  }
}

/** Resize the pseudo-terminal (stty on its device: the shell gets SIGWINCH). */
function resizePty(shell: Shell, cols: number, rows: number): Promise<void> {
  const tty = shell.pty ? ptyOf(shell.proc.pid) : null;
  if (!tty) return Promise.resolve();
  return new Promise((done) => {
    spawn("stty", ["-F", tty, "cols", String(cols), "rows", String(rows)], { stdio: "ignore" })
      .on("error", () => done())
      .on("exit", () => done());
  });
}

/** The pty device of script(1)'s child shell (Linux /proc), or null. */
function ptyOf(scriptPid: number | undefined): string | null {
  if (scriptPid === undefined) return null;
  try {
    const children = readFileSync(`/proc/${scriptPid}/task/${scriptPid}/children`, "utf8")
      .trim()
      .split(/\s+/);
    for (const child of children) {
      if (!/^\d+$/.test(child)) continue;
      const tty = readlinkSync(`/proc/${child}/fd/0`);
      if (tty.startsWith("/dev/pts/")) return tty;
    }
  } catch {
    // The shell is gone or /proc is not readable: the size stays.
  }
  return null;
}
