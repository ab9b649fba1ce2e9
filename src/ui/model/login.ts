import { createStore, type StoreApi } from "zustand/vanilla";
import type { TerminalSize } from "./layout.js";

/** The login screen's state: the key typed so far (never shown) and how verifying it went. */

/**
 * Where a signed-in key is kept: the OS keychain, nowhere (this run only, in memory), or the
 * plain-text file the user explicitly chose (what `login --insecure-storage` does).
 */
export type KeyStorage = "keychain" | "memory" | "insecure-file";

export type LoginPhase =
  | { kind: "typing" }
  | { kind: "verifying" }
  | { kind: "failed"; message: string; hint?: string | null }
  /** The key cannot go to the keychain: the user picks this run only or the plain file. */
  | { kind: "choosing"; problem: Problem };

export interface LoginState {
  readonly size: TerminalSize;
  readonly value: string;
  readonly phase: LoginPhase;
}

export type LoginStore = StoreApi<LoginState>;

export function createLoginStore(size: TerminalSize): LoginStore {
  return createStore<LoginState>()(() => ({ size, value: "", phase: { kind: "typing" } }));
}

/** Something that stands in the way, and what to do about it (an error's message and hint). */
export interface Problem {
  message: string;
  hint: string | null;
  /** The error's stable code, when it has one ("keychain_unavailable", "invalid_key", …). */
  code?: string | null;
}

/** An error as the login screen shows it: its message, then its hint when it has one. */
export function problemOf(e: unknown): Problem {
  const o = (e !== null && typeof e === "object" ? e : {}) as Record<string, unknown>;
  const message = e instanceof Error ? e.message : String(e);
  return {
    message,
    hint: typeof o.hint === "string" && o.hint !== "" ? o.hint : null,
    code: typeof o.code === "string" ? o.code : null,
  };
}

/** Where the key the UI started with came from (the credentials layer's KeySource). */
export type StartKeySource = "env" | "keychain" | "insecure-file";

/**
 * The service refused the key the UI started with: what it said, and the way out, which
 * depends on where that key came from (a key in the environment wins over anything stored,
 * so pasting one here helps this run only until the variable is fixed).
 */
export function keyRefusal(serviceSaid: string, source: StartKeySource | null): Problem {
  const which =
    source === "env"
      ? "the key in AGENT_SESSIONS_API_KEY"
      : source === "insecure-file"
        ? "the key stored in the plain-text file"
        : source === "keychain"
          ? "the key stored in the keychain"
          : "the key";
  return {
    message: `The service refused ${which}: ${serviceSaid}`,
    hint:
      source === "env"
        ? "Paste a valid key to sign in; AGENT_SESSIONS_API_KEY still wins in later runs: fix or unset it."
        : "Paste a valid key to sign in: it replaces the refused one.",
    code: "invalid_key",
  };
}
