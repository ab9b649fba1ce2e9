/**
 * One session terminal (websockets/terminal.mdx), as a user attached to it sees it: a token
 * is minted just before each connection (they live 5 minutes), and once more after a 4001; a
 * connection that drops is opened again with backoff (backoff.ts) while the user stays
 * attached, and the wait is said; 4009 (another client took the terminal) and the idle close
 * end it, said plainly: nothing is ever sent to keep a terminal open.
 *
 * Output comes as text or binary frames and goes to `onData` as it came; a text frame that is
 * a JSON control message (`connected`, `ping`, `pong`, `sandbox_expired`, `resize`) is
 * handled here instead. Input goes out as text frames, `resize` as a JSON control message.
 */
import type { WebSocket } from "undici";
import { IDLE_CLOSE_REASON, parseControl, TERMINAL_CLOSE } from "../protocol/terminal.js";
import { sanitize } from "../text/sanitize.js";
import type { ApiClient } from "./apiClient.js";
import { backoffDelay } from "./backoff.js";
import { AgentSessionsError, CancelledError, NetworkError } from "./errors.js";
import { cancellableDelay } from "./signals.js";

/** Where the terminal is, for the status line. */
export type TerminalStatus =
  | { kind: "connecting"; attempt: number }
  | { kind: "open" }
  | { kind: "reconnecting"; attempt: number; maxAttempts: number; delayMs: number; reason: string };

/** Why a terminal ended for good. */
export type TerminalEnd =
  | { kind: "detached" }
  /** 4009: another client took the terminal (or the session left its running state). */
  | { kind: "taken"; message: string }
  /** The server closed it after its idle timeout without input. */
  | { kind: "idle"; message: string }
  /** The shell exited, or the server closed it normally. */
  | { kind: "closed"; message: string }
  /** The sandbox behind the session expired. */
  | { kind: "sandbox_expired"; message: string }
  /** The service refused the terminal (no scope, no session, not active, a bad token twice). */
  | { kind: "refused"; message: string; error?: AgentSessionsError }
  /** The connection kept dropping and the attempts ran out. */
  | { kind: "lost"; message: string };

export interface TerminalOptions {
  cols: number;
  rows: number;
  onData: (chunk: string | Uint8Array) => void;
  onStatus?: (status: TerminalStatus) => void;
  /** Reconnections in a row before giving up (default 6). */
  maxAttempts?: number;
  /** First reconnection wait (default 500 ms); doubled each time, capped at 30 s. */
  backoffBaseMs?: number;
  random?: () => number;
}

const MAX_DELAY_MS = 30_000;
const MAX_TYPED_AHEAD = 64 * 1024;
/** A connection open this long counts as a good one: the next drop starts the backoff anew. */
const STABLE_MS = 5_000;

type Closing = { code: number; reason: string; opened: boolean; openedAt: number };

export class TerminalConnection {
  readonly #client: ApiClient;
  readonly #id: string;
  readonly #opts: TerminalOptions;
  readonly #stop = new AbortController();
  #ws: WebSocket | null = null;
  #size: { cols: number; rows: number };
  #ended: TerminalEnd | null = null;
  /** Input typed before the connection opened. */
  #typedAhead = "";

  constructor(client: ApiClient, sessionId: string, opts: TerminalOptions) {
    this.#client = client;
    this.#id = sessionId;
    this.#opts = opts;
    this.#size = { cols: opts.cols, rows: opts.rows };
  }

  /** Connects and stays connected until the terminal ends for good; resolves with why. */
  async run(): Promise<TerminalEnd> {
    const max = this.#opts.maxAttempts ?? 6;
    let failures = 0;
    let badTokens = 0;
    for (;;) {
      if (this.#ended) return this.#ended;
      this.#opts.onStatus?.({ kind: "connecting", attempt: failures + 1 });
      let closing: Closing;
      try {
        const token = await this.#client.wsToken(this.#id, "terminal", this.#stop.signal);
        closing = await this.#connect(token.token);
      } catch (e) {
        if (this.#ended) return this.#ended;
        if (e instanceof CancelledError) return this.#end({ kind: "detached" });
        // Only what a second try can mend is tried again (not a certificate, not a name).
        if (!(e instanceof NetworkError) || !e.failure.retryable || failures + 1 >= max) {
          const message = e instanceof Error ? e.message : String(e);
          return this.#end({
            kind: e instanceof NetworkError ? "lost" : "refused",
            message,
            ...(e instanceof AgentSessionsError && !(e instanceof NetworkError)
              ? { error: e }
              : {}),
          });
        }
        failures++;
        if (!(await this.#wait(failures, max, e.message)))
          return this.#ended ?? this.#end({ kind: "detached" });
        continue;
      }
      if (this.#ended) return this.#ended;
      const reason = sanitize(closing.reason).replace(/\s+/g, " ").trim();
      switch (closing.code) {
        case TERMINAL_CLOSE.badToken:
          // Minted just now, so it expired on the way or was refused: one more, then stop.
          badTokens++;
          if (badTokens > 1) {
            return this.#end({
              kind: "refused",
              message: `The service refused a fresh terminal token twice (WebSocket close 4001${reason ? `: ${reason}` : ""})`,
            });
          }
          continue;
        case TERMINAL_CLOSE.taken:
          return this.#end({
            kind: "taken",
            message: `Another client took this terminal (WebSocket close 4009${reason ? `: ${reason}` : ""}); it is not taken back automatically`,
          });
        case TERMINAL_CLOSE.forbidden:
        case TERMINAL_CLOSE.notFound:
          return this.#end({
            kind: "refused",
            message: `The service refused the terminal (WebSocket close ${closing.code}${reason ? `: ${reason}` : ""})`,
          });
        case TERMINAL_CLOSE.normal:
          if (reason === IDLE_CLOSE_REASON || /\bidle\b/i.test(reason)) {
            return this.#end({
              kind: "idle",
              message: `The service closed the terminal after its idle timeout without input (${reason})`,
            });
          }
          return this.#end({
            kind: "closed",
            message: `The terminal was closed by the service${reason ? `: ${reason}` : ""}`,
          });
      }
      badTokens = 0;
      if (closing.opened && Date.now() - closing.openedAt >= STABLE_MS) failures = 0;
      failures++;
      if (failures >= max) {
        return this.#end({
          kind: "lost",
          message: `The terminal connection dropped ${failures} times in a row (last: close ${closing.code}${reason ? ` ${reason}` : ""}); giving up`,
        });
      }
      const why = closing.opened
        ? `connection dropped (close ${closing.code}${reason ? ` ${reason}` : ""})`
        : `could not open the terminal WebSocket (close ${closing.code}${reason ? ` ${reason}` : ""})`;
      if (!(await this.#wait(failures, max, why)))
        return this.#ended ?? this.#end({ kind: "detached" });
    }
  }

  /**
   * Keys typed by the user, as a text frame. Typed while the terminal connects (or
   * reconnects), they wait and go once it is open, up to 64 KiB; past that they are refused
   * (false) and the caller says so.
   */
  send(input: string): boolean {
    if (input === "" || this.#ended) return false;
    const ws = this.#ws;
    if (ws && ws.readyState === ws.OPEN) {
      ws.send(input);
      return true;
    }
    if (this.#typedAhead.length + input.length > MAX_TYPED_AHEAD) return false;
    this.#typedAhead += input;
    return true;
  }

  /** The user's view changed size: the pty follows (sent now, and on every connection). */
  resize(cols: number, rows: number): void {
    if (cols === this.#size.cols && rows === this.#size.rows) return;
    this.#size = { cols, rows };
    const ws = this.#ws;
    if (ws && ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify({ type: "resize", cols, rows }));
    }
  }

  /** The user detaches: the connection closes and run() resolves with "detached". */
  close(): void {
    this.#end({ kind: "detached" });
  }

  #end(end: TerminalEnd): TerminalEnd {
    this.#ended ??= end;
    this.#stop.abort();
    const ws = this.#ws;
    this.#ws = null;
    if (ws && ws.readyState <= ws.OPEN) ws.close(1000, "detached");
    return this.#ended;
  }

  async #wait(attempt: number, max: number, reason: string): Promise<boolean> {
    const delayMs = backoffDelay(attempt, {
      baseMs: this.#opts.backoffBaseMs ?? 500,
      maxMs: MAX_DELAY_MS,
      jitter: 0.2,
      ...(this.#opts.random ? { random: this.#opts.random } : {}),
    });
    this.#opts.onStatus?.({ kind: "reconnecting", attempt, maxAttempts: max, delayMs, reason });
    try {
      await cancellableDelay(delayMs, this.#stop.signal, "waiting to reconnect the terminal");
      return true;
    } catch {
      return false;
    }
  }

  #connect(token: string): Promise<Closing> {
    const path = this.#client.terminalPath(this.#id);
    return this.#client.transport
      .openWebSocket(path, new URLSearchParams({ token }), this.#stop.signal)
      .then(
        (ws) =>
          new Promise<Closing>((resolve) => {
            this.#ws = ws;
            let opened = false;
            let openedAt = 0;
            ws.addEventListener("open", () => {
              opened = true;
              openedAt = Date.now();
              const { cols, rows } = this.#size;
              ws.send(JSON.stringify({ type: "resize", cols, rows }));
              if (this.#typedAhead !== "") ws.send(this.#typedAhead);
              this.#typedAhead = "";
              this.#opts.onStatus?.({ kind: "open" });
            });
            ws.addEventListener("message", (ev) => {
              const data = ev.data as unknown;
              if (typeof data === "string") {
                const ctl = parseControl(data);
                if (ctl === null) this.#opts.onData(data);
                else if (ctl.type === "ping") ws.send(JSON.stringify({ type: "pong" }));
                else if (ctl.type === "sandbox_expired") {
                  this.#end({
                    kind: "sandbox_expired",
                    message: "The session's sandbox expired: its terminal is gone",
                  });
                }
              } else if (data instanceof ArrayBuffer) {
                this.#opts.onData(new Uint8Array(data));
              }
            });
            ws.addEventListener("close", (ev) => {
              if (this.#ws === ws) this.#ws = null;
              resolve({ code: ev.code, reason: ev.reason, opened, openedAt });
            });
          }),
      );
  }
}
