import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signIn } from "../../src/cli/tui/signIn.js";
import {
  KEYCHAIN_SERVICE,
  keychainAccount,
  keychainDelete,
  keychainGet,
  keychainSet,
} from "../../src/credentials/keychain.js";
import { configPath } from "../../src/credentials/paths.js";
import { resolveCredentials } from "../../src/credentials/resolve.js";
import { removeCredentials, saveCredentials } from "../../src/credentials/store.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import type { AppServices } from "../../src/ui/model/services.js";
import { CLI, runCli, tempConfigHome } from "../helpers/cli.js";
import { keychainProblem } from "../helpers/keychainProbe.js";

/**
 * The real OS keychain (the Secret Service on Linux; in CI a throwaway gnome-keyring under
 * dbus-run-session, see test/with-keyring.sh). Where none is reachable the suite is skipped
 * with the reason, unless AGENT_SESSIONS_REQUIRE_KEYCHAIN=1 (set by .ci/run): then it fails.
 * (CI=true cannot be the signal: test/setup.ts deletes it for the UI tests.)
 */

const ROOT = join(import.meta.dirname, "..", "..");
const RUN = randomBytes(4).toString("hex");
/** Entries made by the module-level tests live under their own service name. */
const TEST_SERVICE = `${KEYCHAIN_SERVICE}-test-${RUN}`;
const BASE = "http://127.0.0.1:4999";
const required = process.env.AGENT_SESSIONS_REQUIRE_KEYCHAIN === "1";

const unavailable = await keychainProblem(TEST_SERVICE, `probe-${RUN}@${BASE}`);
if (unavailable && !required) {
  console.warn(`keychain suite skipped: ${unavailable}`);
}

it.runIf(unavailable !== null && required)(
  "a real keychain is reachable (AGENT_SESSIONS_REQUIRE_KEYCHAIN=1)",
  () => {
    throw new Error(`no usable OS keychain: ${unavailable}`);
  },
);

/** Reads an entry from a separate process, straight through the library, as another run would. */
function readInNewProcess(service: string, account: string): Promise<string | null> {
  const script = `
    import { Entry } from "@napi-rs/keyring";
    const opts = process.platform === "linux" ? { linux: { store: "secret-service" } } : undefined;
    const value = new Entry(process.env.KC_SERVICE, process.env.KC_ACCOUNT, opts).getPassword();
    process.stdout.write(JSON.stringify({ value: value ?? null }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      env: { ...process.env, KC_SERVICE: service, KC_ACCOUNT: account },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`reader exited ${code}: ${err}`));
      else resolve((JSON.parse(out) as { value: string | null }).value);
    });
  });
}

interface HelperSeen {
  /** The CLI run (its pid) the process belonged to: the helper's parent. */
  run: number;
  pid: number;
  cmdline: string;
  environ: string;
}

/**
 * Makes every Node process started with `NODE_OPTIONS` from `env()` report its own command
 * line and environment as the kernel holds them (/proc/self: what `ps e` or another user's
 * tools would read), each into a file of `dir`. Told from inside the process at its start,
 * so a helper that lives a fraction of a second is never missed, however loaded the host.
 */
function processRecorder(dir: string) {
  const hook = join(dir, "record.cjs");
  writeFileSync(
    hook,
    `const fs = require("node:fs");
const read = (p) => fs.readFileSync(p, "utf8").replaceAll("\\0", " ");
fs.writeFileSync(${JSON.stringify(dir)} + "/seen-" + process.pid + ".json", JSON.stringify({
  run: process.ppid, pid: process.pid,
  cmdline: read("/proc/self/cmdline"), environ: read("/proc/self/environ"),
}));
`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${hook}` },
    seen: (): HelperSeen[] =>
      readdirSync(dir)
        .filter((f) => f.startsWith("seen-"))
        .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as HelperSeen),
  };
}

function fakeKey(label: string): string {
  return `ask_${label}${randomBytes(16).toString("hex")}`;
}

describe.skipIf(unavailable !== null)("OS keychain (real Secret Service)", () => {
  const home = tempConfigHome();
  // Read by the tests only: the describe body of a skipped suite makes no folder.
  let env: NodeJS.ProcessEnv = {};
  beforeAll(() => {
    env = { ...process.env, XDG_CONFIG_HOME: home.dir, AGENT_SESSIONS_API_KEY: undefined };
  });
  const created: Array<[string, string]> = [];

  afterAll(async () => {
    for (const [service, account] of created) {
      await keychainDelete(account, { service }).catch(() => {});
    }
    home.cleanup();
  });

  it("stores, reads back, deletes", async () => {
    const account = `roundtrip-${RUN}@${BASE}`;
    created.push([TEST_SERVICE, account]);
    const key = fakeKey("rt");
    await keychainSet(account, key, { service: TEST_SERVICE });
    expect(await keychainGet(account, { service: TEST_SERVICE })).toBe(key);
    expect(await keychainDelete(account, { service: TEST_SERVICE })).toBe(true);
    expect(await keychainGet(account, { service: TEST_SERVICE })).toBeNull();
    expect(await keychainDelete(account, { service: TEST_SERVICE })).toBe(false);
  });

  it("a new process reads the stored key back", async () => {
    const account = `newproc-${RUN}@${BASE}`;
    created.push([TEST_SERVICE, account]);
    const key = fakeKey("np");
    await keychainSet(account, key, { service: TEST_SERVICE });
    expect(await readInNewProcess(TEST_SERVICE, account)).toBe(key);
  });

  it("two profiles keep two keys apart", async () => {
    const opts = { env, keychain: { service: TEST_SERVICE } };
    const one = `one-${RUN}`;
    const two = `two-${RUN}`;
    created.push(
      [TEST_SERVICE, keychainAccount(one, BASE)],
      [TEST_SERVICE, keychainAccount(two, BASE)],
    );
    const k1 = fakeKey("one");
    const k2 = fakeKey("two");
    await saveCredentials({ ...opts, profile: one, baseUrl: BASE, apiKey: k1 });
    await saveCredentials({ ...opts, profile: two, baseUrl: BASE, apiKey: k2 });
    expect(readFileSync(configPath(env), "utf8")).not.toMatch(new RegExp(`${k1}|${k2}`));

    expect(await resolveCredentials({ ...opts, profile: one })).toMatchObject({
      apiKey: k1,
      source: "keychain",
    });
    expect(await resolveCredentials({ ...opts, profile: two })).toMatchObject({
      apiKey: k2,
      source: "keychain",
    });

    const removed = await removeCredentials({ ...opts, profile: one });
    expect(removed.removed).toEqual([expect.stringContaining(keychainAccount(one, BASE))]);
    expect(await keychainGet(keychainAccount(one, BASE), { service: TEST_SERVICE })).toBeNull();
    expect((await resolveCredentials({ ...opts, profile: two })).apiKey).toBe(k2);

    // The env var still wins over a key that is in the keychain.
    const override = fakeKey("env");
    expect(
      await resolveCredentials({
        ...opts,
        profile: two,
        env: { ...env, AGENT_SESSIONS_API_KEY: override },
      }),
    ).toMatchObject({ apiKey: override, source: "env" });
  });

  it("switching a profile to the keychain removes its plain-text copy", async () => {
    const opts = { env, keychain: { service: TEST_SERVICE } };
    const name = `switch-${RUN}`;
    created.push([TEST_SERVICE, keychainAccount(name, BASE)]);
    const plain = await saveCredentials({
      ...opts,
      profile: name,
      baseUrl: BASE,
      apiKey: fakeKey("a"),
      insecureStorage: true,
    });
    expect(plain.path && existsSync(plain.path)).toBe(true);
    const secure = await saveCredentials({
      ...opts,
      profile: name,
      baseUrl: BASE,
      apiKey: fakeKey("b"),
    });
    expect(secure.storage).toBe("keychain");
    expect(secure.removed).toEqual([`plain-text file ${plain.path}`]);
    expect(existsSync(plain.path as string)).toBe(false);
  });

  it("the sign-in screen's sign-in keeps the key in the keychain, where the next run finds it", async () => {
    const server = await startServer({ seed: 6, sessionCount: 1, paceMs: 0 });
    try {
      const name = `signin-${RUN}`;
      created.push([TEST_SERVICE, keychainAccount(name, server.url)]);
      const warned: string[] = [];
      const opened: string[] = [];
      const login = signIn({
        target: {
          profile: name,
          baseUrl: server.url,
          organizationId: null,
          organizationFrom: null,
        },
        env,
        keychain: { service: TEST_SERVICE },
        secret: () => {},
        warn: (line) => warned.push(line),
        open: async (conn) => {
          opened.push(conn.apiKey);
          return {} as AppServices;
        },
      });
      const key = server.key("owner");
      await login(key, "keychain");
      expect(opened).toEqual([key]);
      expect(warned).toEqual([]);
      expect(
        await resolveCredentials({ env, keychain: { service: TEST_SERVICE }, profile: name }),
      ).toMatchObject({ apiKey: key, source: "keychain" });
    } finally {
      await server.close();
    }
  });

  describe("through the CLI", () => {
    let server: ReferenceServer;
    const profile = `cli-${RUN}`;
    let account: string;
    const cliEnv = () => ({
      XDG_CONFIG_HOME: home.dir,
      DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS,
      XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR,
    });

    beforeAll(async () => {
      server = await startServer({ seed: 3, sessionCount: 1, paceMs: 0 });
      account = keychainAccount(profile, server.url);
      created.push([KEYCHAIN_SERVICE, account]);
    });
    afterAll(async () => {
      await server.close();
    });

    it("login stores in the keychain, a new process reads it, logout removes it", async () => {
      expect(existsSync(CLI), "run npm run build first").toBe(true);
      const key = server.key("member");
      const login = await runCli(["login", "--profile", profile, "--base-url", server.url], {
        env: cliEnv(),
        input: `${key}\n`,
      });
      expect(login.stderr).toBe("");
      expect(login.code).toBe(0);
      expect(login.stdout).toContain(`account "${account}"`);
      expect(`${login.stdout}${login.stderr}`).not.toContain(key);

      expect(await readInNewProcess(KEYCHAIN_SERVICE, account)).toBe(key);

      const who = await runCli(["whoami", "--json", "--profile", profile], { env: cliEnv() });
      expect(who.code).toBe(0);
      expect(JSON.parse(who.stdout)).toMatchObject({ key_source: "keychain", role: "member" });

      const logout = await runCli(["logout", "--profile", profile], { env: cliEnv() });
      expect(logout.code).toBe(0);
      expect(logout.stdout).toContain(`removed the key from`);
      expect(logout.stdout).toContain(account);
      expect(await readInNewProcess(KEYCHAIN_SERVICE, account)).toBeNull();

      const after = await runCli(["whoami", "--profile", profile], { env: cliEnv() });
      expect(after.code).toBe(3);
      expect(after.stderr).toContain(`no API key for profile ${profile}`);
    });

    it("profiles use switches the default; profiles remove deletes the profile and its keychain entry", async () => {
      const first = `use-a-${RUN}`;
      const second = `use-b-${RUN}`;
      const accounts = [first, second].map((p) => keychainAccount(p, server.url));
      for (const a of accounts) created.push([KEYCHAIN_SERVICE, a]);
      for (const [p, keyName] of [
        [first, "member"],
        [second, "admin"],
      ] as const) {
        const r = await runCli(["login", "--profile", p, "--base-url", server.url], {
          env: cliEnv(),
          input: `${server.key(keyName)}\n`,
        });
        expect(r.code, r.stderr).toBe(0);
      }

      const use = await runCli(["profiles", "use", second], { env: cliEnv() });
      expect(use.code, use.stderr).toBe(0);
      const who = await runCli(["whoami", "--json"], { env: cliEnv() });
      expect(JSON.parse(who.stdout)).toMatchObject({
        profile: second,
        role: "admin",
        key_source: "keychain",
      });

      const rm = await runCli(["profiles", "remove", second], { env: cliEnv() });
      expect(rm.code, rm.stderr).toBe(0);
      expect(rm.stdout).toContain(`account "${accounts[1]}"`);
      expect(rm.stdout).toContain("It was the default profile");
      expect(await readInNewProcess(KEYCHAIN_SERVICE, accounts[1] as string)).toBeNull();
      // The other profile's key is untouched.
      expect(await readInNewProcess(KEYCHAIN_SERVICE, accounts[0] as string)).toBe(
        server.key("member"),
      );
      const gone = await runCli(["whoami", "--profile", second], { env: cliEnv() });
      expect(gone.code).toBe(2);
      expect(gone.stderr).toContain(`no such profile ${second}`);
    });

    it.runIf(process.platform === "linux")(
      "the keychain helper carries the key in neither its command line nor its environment",
      async () => {
        const key = server.key("owner");
        const name = `proc-${RUN}`;
        const procAccount = keychainAccount(name, server.url);
        created.push([KEYCHAIN_SERVICE, procAccount]);
        let seen: HelperSeen[] = [];
        const dir = mkdtempSync(join(tmpdir(), "as-helper-"));
        try {
          const rec = processRecorder(dir);
          // The key is in the CLI's own environment too: the helper must not inherit it.
          const withKey = { ...cliEnv(), ...rec.env, AGENT_SESSIONS_API_KEY: key };
          const login = await runCli(["login", "--profile", name, "--base-url", server.url], {
            env: withKey,
            input: `${key}\n`,
          });
          expect(login.code).toBe(0);
          // Reading it back: the key comes out of the helper, still through a pipe.
          const who = await runCli(["whoami", "--json", "--profile", name], {
            env: { ...cliEnv(), ...rec.env },
          });
          expect(who.code).toBe(0);
          expect(JSON.parse(who.stdout)).toMatchObject({ key_source: "keychain" });
          seen = rec.seen();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }

        const helpers = seen.filter((h) => h.cmdline.includes("@napi-rs/keyring"));
        // Login stores and reads back, whoami reads: each run started helpers, and every one
        // of them reported itself, so the checks below look at all of them.
        expect(new Set(helpers.map((h) => h.run)).size).toBe(2);
        for (const h of helpers) {
          expect(h.cmdline).not.toContain(key);
          expect(h.environ).not.toContain(key);
          expect(h.environ).not.toContain("AGENT_SESSIONS_API_KEY=");
          // The helper still got what it needs to find the bus.
          expect(h.environ).toContain("DBUS_SESSION_BUS_ADDRESS=");
        }
      },
    );

    it("an invalid or expired key is refused with exit 3 and never reaches the keychain", async () => {
      const refused = `refused-${RUN}`;
      const refusedAccount = keychainAccount(refused, server.url);
      created.push([KEYCHAIN_SERVICE, refusedAccount]);
      for (const key of [server.key("expired"), fakeKey("never-issued")]) {
        const r = await runCli(["login", "--profile", refused, "--base-url", server.url], {
          env: cliEnv(),
          input: `${key}\n`,
        });
        expect(r.code).toBe(3);
        expect(r.stderr).toMatch(/^error: (Invalid API key|API key expired at )/);
        expect(await readInNewProcess(KEYCHAIN_SERVICE, refusedAccount)).toBeNull();
      }
      const path = configPath({ XDG_CONFIG_HOME: home.dir });
      const config = existsSync(path) ? readFileSync(path, "utf8") : "{}";
      expect(JSON.parse(config).profiles ?? {}).not.toHaveProperty(refused);
    });
  });
});

const haveGnomeKeyring =
  process.platform === "linux" &&
  spawnSync("sh", ["-c", "command -v dbus-run-session && command -v gnome-keyring-daemon"])
    .status === 0;

describe.skipIf(!haveGnomeKeyring && !required)("a keyring that cannot be used here", () => {
  let server: ReferenceServer;
  let home: ReturnType<typeof tempConfigHome>;
  beforeAll(async () => {
    server = await startServer({ seed: 4, sessionCount: 1, paceMs: 0 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    home = tempConfigHome();
  });
  afterEach(() => home.cleanup());

  /** Runs `sh -c script` on a private session bus, with HOME and the config in the temp home. */
  function onPrivateBus(
    script: string,
    args: string[],
    input: string,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn("dbus-run-session", ["--", "sh", "-c", script, "sh", ...args], {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: home.dir,
          XDG_CONFIG_HOME: home.dir,
        },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        stdout += d;
      });
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      const timer = setTimeout(() => {
        // The whole group: the bus, the shell and the keyring daemon it started go with it.
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        reject(new Error(`timed out\n${stdout}\n${stderr}`));
      }, 15_000);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      child.stdin.end(input);
    });
  }

  /**
   * For a daemon of this test's own, started in the foreground in the background (`keyring`
   * its pid): `await_keyring` waits until it owns the Secret Service name, `stop_keyring` ends
   * it, so no daemon outlives the private bus (a daemonized one would).
   */
  const OWN_KEYRING = `await_keyring() {
      i=0
      while [ $i -lt 50 ]; do
        dbus-send --session --dest=org.freedesktop.DBus --print-reply /org/freedesktop/DBus \
          org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
          | grep -q "boolean true" && break
        sleep 0.1; i=$((i + 1))
      done
    }
    stop_keyring() { kill "$keyring" 2>/dev/null; wait "$keyring" 2>/dev/null; }`;

  // The daemon is started but never unlocked, and there is no display for its prompt:
  // a headless box (or an SSH session) whose keyring nobody unlocked.
  const START_LOCKED = `${OWN_KEYRING}
    gnome-keyring-daemon --start --foreground --components=secrets </dev/null >/dev/null 2>&1 &
    keyring=$!
    await_keyring
    "$@"; rc=$?
    stop_keyring; exit $rc`;

  async function loginOnPrivateBus(key: string) {
    const r = await onPrivateBus(
      START_LOCKED,
      [process.execPath, CLI, "login", "--base-url", server.url],
      `${key}\n`,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/hint: Set AGENT_SESSIONS_API_KEY.*login --insecure-storage/);
    expect(`${r.stdout}${r.stderr}`).not.toContain(key);
    expect(existsSync(join(home.dir, "agent-sessions"))).toBe(false);
    return r;
  }

  it("no keyring at all: login names the cause and stores nothing", async () => {
    const r = await loginOnPrivateBus(server.key("owner"));
    expect(r.stderr).toMatch(
      /error: the OS keychain is unavailable: the Secret Service has no default keyring to use/,
    );
  });

  it("a locked keyring: login names the cause and stores nothing", async () => {
    // Create a password-protected login keyring first, then come back without unlocking it.
    const made = await onPrivateBus(
      `${OWN_KEYRING}
       printf pw | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
       keyring=$!
       await_keyring
       for i in $(seq 100); do [ -f "$HOME/.local/share/keyrings/login.keyring" ] && { stop_keyring; exit 0; }; sleep 0.05; done
       stop_keyring; exit 1`,
      [],
      "",
    );
    expect(made.code).toBe(0);
    const r = await loginOnPrivateBus(server.key("owner"));
    expect(r.stderr).toMatch(/error: the OS keychain is unavailable: the keyring is locked/);
  });
});
