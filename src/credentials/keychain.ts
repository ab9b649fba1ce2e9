import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { KeychainUnavailableError } from "./errors.js";
import { originOfBaseUrl } from "./profiles.js";

/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, the
 * Secret Service (gnome-keyring, KWallet, KeePassXC) on Linux.
 *
 * Naming: service `agent-sessions-tui`, account `<profile>@<origin of the base URL>`, e.g.
 * `work@https://agents.example.com`. Putting the origin in the account means a key is only
 * ever found for the host it was verified against.
 *
 * On Linux the entry is pinned to the Secret Service: the library would otherwise fall back
 * silently to the kernel keyring, which forgets the key at reboot.
 *
 * Every call runs in a short-lived child process. The binding's constructor connects to
 * D-Bus synchronously, and a locked keyring (or a bus that never answers) blocks it with no
 * way out: neither a timer in this process nor a worker thread can interrupt native code,
 * and a stuck worker even keeps the process from exiting. A child can be killed. The key
 * travels over the child's stdin/stdout pipes, never its command line or environment.
 */

export const KEYCHAIN_SERVICE = "agent-sessions-tui";

/** Long enough for a cold start of the helper on a busy machine, short enough not to feel hung. */
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 5000;

export function keychainAccount(profile: string, baseUrl: string): string {
  return `${profile}@${originOfBaseUrl(baseUrl)}`;
}

export interface KeychainOptions {
  /** Environment of the helper (D-Bus address etc.); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Give up after this long; default AGENT_SESSIONS_KEYCHAIN_TIMEOUT_MS or 5 s. */
  timeoutMs?: number;
  /** Tests use their own service name so they never touch a real user's entries. */
  service?: string;
}

type Request =
  | { op: "get"; service: string; account: string }
  | { op: "set"; service: string; account: string; secret: string }
  | { op: "delete"; service: string; account: string };

type Reply = { ok: true; value: string | boolean | null } | { ok: false; message: string };

/** Human description of the store in use, for "stored in …" lines. */
export function keychainName(platform: NodeJS.Platform = process.platform): string {
  switch (platform) {
    case "darwin":
      return "macOS Keychain";
    case "win32":
      return "Windows Credential Manager";
    default:
      return "Secret Service keyring";
  }
}

/**
 * Fails fast where a Secret Service cannot possibly be reached, before anything is asked
 * of the user. libdbus finds the bus through DBUS_SESSION_BUS_ADDRESS or the systemd user
 * bus socket in $XDG_RUNTIME_DIR; with neither there is no session bus.
 */
export function assertKeychainReachable(env: NodeJS.ProcessEnv = process.env): void {
  if (process.platform !== "linux") return;
  if (env.DBUS_SESSION_BUS_ADDRESS) return;
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && existsSync(join(runtime, "bus"))) return;
  throw new KeychainUnavailableError(
    "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service can be reached",
  );
}

export async function keychainGet(
  account: string,
  opts: KeychainOptions = {},
): Promise<string | null> {
  const v = await run({ op: "get", service: opts.service ?? KEYCHAIN_SERVICE, account }, opts);
  return typeof v === "string" ? v : null;
}

/** Stores the secret and reads it back; a store that does not return it is an error. */
export async function keychainSet(
  account: string,
  secret: string,
  opts: KeychainOptions = {},
): Promise<void> {
  await run({ op: "set", service: opts.service ?? KEYCHAIN_SERVICE, account, secret }, opts);
}

/** True when an entry was removed, false when there was none. */
export async function keychainDelete(
  account: string,
  opts: KeychainOptions = {},
): Promise<boolean> {
  const v = await run({ op: "delete", service: opts.service ?? KEYCHAIN_SERVICE, account }, opts);
  return v === true;
}

/** The helper, as a CommonJS program given to `node -e`; the request arrives on stdin. */
function helperSource(modulePath: string): string {
  return `
const { Entry } = require(${JSON.stringify(modulePath)});
const options = process.platform === "linux" ? { linux: { store: "secret-service" } } : undefined;
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  let reply;
  try {
    const req = JSON.parse(input);
    const entry = () => new Entry(req.service, req.account, options);
    if (req.op === "get") {
      reply = { ok: true, value: entry().getPassword() ?? null };
    } else if (req.op === "set") {
      entry().setPassword(req.secret);
      const back = entry().getPassword();
      reply = back === req.secret
        ? { ok: true, value: null }
        : { ok: false, message: "the key did not read back from the keychain after storing it" };
    } else if (req.op === "delete") {
      reply = { ok: true, value: entry().deleteCredential() };
    } else {
      reply = { ok: false, message: "unknown keychain operation" };
    }
  } catch (e) {
    reply = { ok: false, message: String((e && e.message) || e) };
  }
  process.stdout.write(JSON.stringify(reply));
});
`;
}

let cachedModulePath: string | null = null;

function keyringModulePath(): string {
  if (!cachedModulePath) {
    cachedModulePath = createRequire(import.meta.url).resolve("@napi-rs/keyring");
  }
  return cachedModulePath;
}

function timeoutFrom(opts: KeychainOptions, env: NodeJS.ProcessEnv): number {
  if (opts.timeoutMs !== undefined) return opts.timeoutMs;
  const raw = Number(env.AGENT_SESSIONS_KEYCHAIN_TIMEOUT_MS);
  return Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_KEYCHAIN_TIMEOUT_MS;
}

/** The library's own words, turned into a cause a user can act on. */
export function explainKeychainFailure(message: string): string {
  const m = message.replace(/\s+/g, " ").trim().slice(0, 300);
  if (/DBUS_SESSION_BUS_ADDRESS|autolaunch/i.test(m)) {
    return "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service can be reached";
  }
  if (/prompt was dismissed|is locked|locked collection/i.test(m)) {
    return `the keyring is locked and could not be unlocked here (${m})`;
  }
  if (/no result found/i.test(m)) {
    return `the Secret Service has no default keyring to use: none exists and none could be created or unlocked without a prompt (${m})`;
  }
  if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service/i.test(m)) {
    return `no Secret Service answers on the session bus; start gnome-keyring or KWallet (${m})`;
  }
  return `the keychain reported: ${m}`;
}

function run(req: Request, opts: KeychainOptions): Promise<string | boolean | null> {
  const env = opts.env ?? process.env;
  assertKeychainReachable(env);
  const timeoutMs = timeoutFrom(opts, env);
  let modulePath: string;
  try {
    modulePath = keyringModulePath();
  } catch {
    return Promise.reject(
      new KeychainUnavailableError("the @napi-rs/keyring package is not installed"),
    );
  }
  // The helper needs the bus address, not our key.
  const childEnv: NodeJS.ProcessEnv = { ...env };
  delete childEnv.AGENT_SESSIONS_API_KEY;

  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", helperSource(modulePath)], {
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    let stdout = "";
    let stderr = "";
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(() =>
        reject(
          new KeychainUnavailableError(
            `the keychain did not answer within ${Math.round(timeoutMs / 100) / 10} s (a locked keyring may be waiting for a password prompt)`,
          ),
        ),
      );
    }, timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 4096) stderr += d;
    });
    child.on("error", (e) =>
      finish(() =>
        reject(new KeychainUnavailableError(`cannot start the keychain helper: ${e.message}`)),
      ),
    );
    child.on("close", (code) => {
      finish(() => {
        let reply: Reply | null = null;
        try {
          reply = JSON.parse(stdout) as Reply;
        } catch {
          reply = null;
        }
        if (!reply) {
          const line = stderr.split("\n").find((l) => l.trim() !== "") ?? "";
          reject(
            new KeychainUnavailableError(
              `the keychain helper failed (exit ${code ?? "signal"})${line ? `: ${scrub(line, req).slice(0, 200)}` : ""}`,
            ),
          );
          return;
        }
        if (reply.ok) resolve(reply.value);
        else
          reject(new KeychainUnavailableError(explainKeychainFailure(scrub(reply.message, req))));
      });
    });
    // A helper that dies before reading its stdin makes this write fail; "close" reports it.
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(req));
  });
}

/** Library messages never echo the secret, but a cheap guard costs nothing. */
function scrub(text: string, req: Request): string {
  if (req.op !== "set" || req.secret.length === 0) return text;
  return text.split(req.secret).join("[redacted key]");
}
