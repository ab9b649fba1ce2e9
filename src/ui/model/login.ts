import { createStore, type StoreApi } from "zustand/vanilla";
import type { TerminalSize } from "./layout.js";

/** The login screen's state: the key typed so far (never shown) and how verifying it went. */

export type LoginPhase =
  | { kind: "typing" }
  | { kind: "verifying" }
  | { kind: "failed"; message: string; hint?: string | null };

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
}

/** An error as the login screen shows it: its message, then its hint when it has one. */
export function problemOf(e: unknown): Problem {
  const o = (e !== null && typeof e === "object" ? e : {}) as Record<string, unknown>;
  const message = e instanceof Error ? e.message : String(e);
  return { message, hint: typeof o.hint === "string" && o.hint !== "" ? o.hint : null };
}
