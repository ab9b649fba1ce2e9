import type { AttentionState } from "../../store/attention/attentionStore.js";
import type { AttentionItem } from "../../store/attention/queue.js";
import { BACKGROUND_TIMERS, type Timers } from "../../store/backgroundTimers.js";
import { osc9, osc777, tmuxPassthrough } from "../../text/notification.js";

/**
 * Telling the user a session needs them, without nagging: at most one bell per session per
 * transition, and transitions that come close together are one notification. The first one
 * after a quiet spell waits `coalesceMs` for others; after a notification, further ones wait
 * until `quietMs` have passed and then go as one. `AGENT_SESSIONS_NOTIFY` picks the channels:
 * the bell, a desktop notification through the terminal (OSC 9, or OSC 777 where the terminal
 * asks for it), both, or none.
 */

export interface NotifyPolicy {
  bell: boolean;
  osc: boolean;
  /** Which desktop notification the terminal understands. */
  oscKind: "9" | "777";
  /** Inside tmux: wrap the OSC in its passthrough. */
  tmux: boolean;
}

export const DEFAULT_NOTIFY: NotifyPolicy = { bell: true, osc: false, oscKind: "9", tmux: false };

export const NOTIFY_VALUES = ["bell", "osc", "both", "off"] as const;
export type NotifyValue = (typeof NOTIFY_VALUES)[number];

/**
 * The policy an environment asks for: AGENT_SESSIONS_NOTIFY (default bell), with
 * AGENT_SESSIONS_BELL=0 taking the bell out of whatever it says (as it always has). OSC 777
 * for VTE terminals (VTE_VERSION), urxvt and foot; OSC 9 elsewhere.
 */
export function notifyPolicyFromEnv(env: Record<string, string | undefined>): {
  policy: NotifyPolicy;
  warning: string | null;
} {
  const raw = (env.AGENT_SESSIONS_NOTIFY ?? "").trim().toLowerCase();
  let value: NotifyValue = "bell";
  let warning: string | null = null;
  if (raw !== "") {
    if ((NOTIFY_VALUES as readonly string[]).includes(raw)) value = raw as NotifyValue;
    else {
      warning = `ignoring AGENT_SESSIONS_NOTIFY=${JSON.stringify(raw.slice(0, 20))}: expected ${NOTIFY_VALUES.join(", ")}`;
    }
  }
  const term = env.TERM ?? "";
  const wants777 =
    (env.VTE_VERSION !== undefined && env.VTE_VERSION !== "") ||
    term.startsWith("rxvt") ||
    term.startsWith("foot");
  return {
    policy: {
      bell: (value === "bell" || value === "both") && env.AGENT_SESSIONS_BELL !== "0",
      osc: value === "osc" || value === "both",
      oscKind: wants777 ? "777" : "9",
      tmux: env.TMUX !== undefined && env.TMUX !== "",
    },
    warning,
  };
}

const SHOWN = 3;

/** What one notification says: which sessions and why, the first few by name. */
export function notificationText(
  items: readonly AttentionItem[],
  nameOf: (sessionId: string) => string | null,
): { title: string; body: string } {
  // The reason named, with its detail: "checkout (ses_a) awaiting approval: Deploy …?".
  const parts = items.slice(0, SHOWN).map((i) => {
    const name = nameOf(i.sessionId);
    return `${name ? `${name} (${i.sessionId})` : i.sessionId} ${i.message}`;
  });
  const more = items.length > SHOWN ? ` and ${items.length - SHOWN} more` : "";
  const title =
    items.length === 1
      ? "agent-sessions: a session needs you"
      : "agent-sessions: sessions need you";
  return { title, body: `${parts.join("; ")}${more}` };
}

/** The bytes one notification writes: the bell and/or the OSC, as the policy says. */
export function notificationBytes(
  items: readonly AttentionItem[],
  policy: NotifyPolicy,
  nameOf: (sessionId: string) => string | null,
): string {
  if (items.length === 0) return "";
  let out = "";
  if (policy.osc) {
    const { title, body } = notificationText(items, nameOf);
    const seq = policy.oscKind === "777" ? osc777(title, body) : osc9(`${title}: ${body}`);
    out += policy.tmux ? tmuxPassthrough(seq) : seq;
  }
  if (policy.bell) out += "\x07";
  return out;
}

export type NotifierTimers = Timers;

export interface NotifierOptions {
  attention: {
    getState(): Pick<AttentionState, "raisedVersion" | "lastRaised">;
    subscribe(fn: (s: AttentionState) => void): () => void;
  };
  policy: NotifyPolicy;
  write: (bytes: string) => void;
  nameOf?: (sessionId: string) => string | null;
  /** The first transition waits this long for others. Default 1000. */
  coalesceMs?: number;
  /** After a notification, the next waits at least this long. Default 10000. */
  quietMs?: number;
  timers?: NotifierTimers;
}

export class Notifier {
  readonly #o: NotifierOptions;
  readonly #t: NotifierTimers;
  #pending: AttentionItem[] = [];
  #timer: unknown = null;
  #lastAt = Number.NEGATIVE_INFINITY;
  #off: (() => void) | null = null;
  /** Notifications written so far. */
  sent = 0;

  constructor(o: NotifierOptions) {
    this.#o = o;
    this.#t = o.timers ?? BACKGROUND_TIMERS;
  }

  start(): void {
    if (this.#off || (!this.#o.policy.bell && !this.#o.policy.osc)) return;
    let seen = this.#o.attention.getState().raisedVersion;
    this.#off = this.#o.attention.subscribe((s) => {
      if (s.raisedVersion === seen) return;
      seen = s.raisedVersion;
      this.#add(s.lastRaised);
    });
  }

  stop(): void {
    this.#off?.();
    this.#off = null;
    if (this.#timer !== null) this.#t.clearTimer(this.#timer);
    this.#timer = null;
    this.#pending = [];
  }

  #add(items: readonly AttentionItem[]): void {
    for (const item of items) {
      // One per session and transition: the same one raised twice is told once.
      const dup = this.#pending.some(
        (p) => p.sessionId === item.sessionId && p.reason === item.reason,
      );
      if (!dup) this.#pending.push(item);
    }
    if (this.#pending.length === 0 || this.#timer !== null) return;
    const now = this.#t.now();
    const at = Math.max(
      now + (this.#o.coalesceMs ?? 1000),
      this.#lastAt + (this.#o.quietMs ?? 10_000),
    );
    this.#timer = this.#t.setTimer(() => this.#flush(), at - now);
  }

  #flush(): void {
    this.#timer = null;
    const items = this.#pending;
    this.#pending = [];
    if (items.length === 0) return;
    this.#lastAt = this.#t.now();
    this.sent++;
    this.#o.write(notificationBytes(items, this.#o.policy, this.#o.nameOf ?? (() => null)));
  }
}
