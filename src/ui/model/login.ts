import { createStore, type StoreApi } from "zustand/vanilla";
import type { TerminalSize } from "./layout.js";

/** The login screen's state: the key typed so far (never shown) and how verifying it went. */

export type LoginPhase =
  | { kind: "typing" }
  | { kind: "verifying" }
  | { kind: "failed"; message: string };

export interface LoginState {
  readonly size: TerminalSize;
  readonly value: string;
  readonly phase: LoginPhase;
}

export type LoginStore = StoreApi<LoginState>;

export function createLoginStore(size: TerminalSize): LoginStore {
  return createStore<LoginState>()(() => ({ size, value: "", phase: { kind: "typing" } }));
}
