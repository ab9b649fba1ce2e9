import { sanitize } from "../../../text/sanitize.js";
import { isTooSmall } from "../../model/layout.js";
import { type KeyStorage, type LoginStore, type Problem, problemOf } from "../../model/login.js";
import type { KeyTarget } from "../route.js";

/**
 * The login screen's keys: type or paste the key, Enter verifies it, Esc or Ctrl-C quits.
 * Where no keychain can keep the key, Enter asks where it goes instead: r for this run only
 * (memory), f for the plain-text file; Esc goes back to the key.
 */

export interface LoginDeps {
  readonly login: LoginStore;
  /** Verify the key and keep it where asked; rejects with a message to show when it cannot. */
  readonly onLogin: (key: string, storage: KeyStorage) => Promise<void>;
  readonly exit: () => void;
  /** Known before anything is pasted: no keychain here (why, and the ways out). */
  readonly keychainProblem?: Problem | null;
}

export type LoginMode = { kind: "login" } | { kind: "tooSmall" };

function shown(p: Problem): Problem {
  return {
    message: sanitize(p.message) || "the key was refused",
    hint: p.hint ? sanitize(p.hint) : null,
    code: p.code ?? null,
  };
}

function signIn(deps: LoginDeps, key: string, storage: KeyStorage): void {
  const { login } = deps;
  login.setState({ phase: { kind: "verifying" } });
  deps.onLogin(key, storage).then(
    () => login.setState({ phase: { kind: "typing" } }),
    (e: unknown) => {
      const p = shown(problemOf(e));
      // The keychain failed only when storing (a bus without a Secret Service, a locked
      // keyring): the key is fine, so offer the other places instead of refusing it.
      if (storage === "keychain" && p.code === "keychain_unavailable") {
        login.setState({ phase: { kind: "choosing", problem: p } });
        return;
      }
      login.setState({ phase: { kind: "failed", message: p.message, hint: p.hint } });
    },
  );
}

export function submitLogin(deps: LoginDeps): void {
  const { login } = deps;
  const key = login.getState().value.trim();
  if (!key) {
    login.setState({ phase: { kind: "failed", message: "Paste a key first" } });
    return;
  }
  if (deps.keychainProblem) {
    login.setState({ phase: { kind: "choosing", problem: shown(deps.keychainProblem) } });
    return;
  }
  signIn(deps, key, "keychain");
}

export function loginTarget(deps: LoginDeps): KeyTarget<LoginMode> {
  const { login } = deps;
  const phase = () => login.getState().phase.kind;
  return {
    mode: () => (isTooSmall(login.getState().size) ? { kind: "tooSmall" } : { kind: "login" }),
    field: (mode) =>
      mode.kind === "login" && phase() !== "verifying" && phase() !== "choosing"
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
      else if (phase() === "verifying") return;
      else if (phase() === "choosing") {
        const key = login.getState().value.trim();
        if (cmd.id === "keyThisRun") signIn(deps, key, "memory");
        else if (cmd.id === "keyToFile") signIn(deps, key, "insecure-file");
        else if (cmd.id === "cancel") login.setState({ phase: { kind: "typing" } });
      } else if (cmd.id === "cancel") deps.exit();
      else if (cmd.id === "submit") submitLogin(deps);
    },
  };
}
