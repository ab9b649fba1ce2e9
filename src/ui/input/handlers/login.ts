import { sanitize } from "../../../text/sanitize.js";
import { isTooSmall } from "../../model/layout.js";
import { type LoginStore, problemOf } from "../../model/login.js";
import type { KeyTarget } from "../route.js";

/** The login screen's keys: type or paste the key, Enter verifies it, Esc or Ctrl-C quits. */

export interface LoginDeps {
  readonly login: LoginStore;
  /** Verify and store the key; rejects with a message to show when it cannot. */
  readonly onLogin: (key: string) => Promise<void>;
  readonly exit: () => void;
}

export type LoginMode = { kind: "login" } | { kind: "tooSmall" };

export function submitLogin(deps: LoginDeps): void {
  const { login } = deps;
  const key = login.getState().value.trim();
  if (!key) {
    login.setState({ phase: { kind: "failed", message: "Paste a key first" } });
    return;
  }
  login.setState({ phase: { kind: "verifying" } });
  deps.onLogin(key).then(
    () => login.setState({ phase: { kind: "typing" } }),
    (e: unknown) => {
      // The caller's error says what to do next in its hint (no keychain: the two ways out).
      const p = problemOf(e);
      login.setState({
        phase: {
          kind: "failed",
          message: sanitize(p.message) || "the key was refused",
          hint: p.hint ? sanitize(p.hint) : null,
        },
      });
    },
  );
}

export function loginTarget(deps: LoginDeps): KeyTarget<LoginMode> {
  const { login } = deps;
  const busy = () => login.getState().phase.kind === "verifying";
  return {
    mode: () => (isTooSmall(login.getState().size) ? { kind: "tooSmall" } : { kind: "login" }),
    field: (mode) =>
      mode.kind === "login" && !busy()
        ? {
            get: () => login.getState().value,
            set: (value) => {
              const phase = login.getState().phase;
              login.setState({
                value,
                phase: phase.kind === "failed" ? { kind: "typing" } : phase,
              });
            },
          }
        : null,
    run: (cmd, mode) => {
      if (cmd.id === "forceQuit" || (mode.kind === "tooSmall" && cmd.id === "quit")) deps.exit();
      else if (busy()) return;
      else if (cmd.id === "cancel") deps.exit();
      else if (cmd.id === "submit") submitLogin(deps);
    },
  };
}
