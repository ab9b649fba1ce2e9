import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConfigFileError,
  KeychainUnavailableError,
  MissingBaseUrlError,
  NoCredentialsError,
} from "../../src/credentials/errors.js";
import { keychainAccount, keychainGet, keychainSet } from "../../src/credentials/keychain.js";
import { configPath, insecureKeyPath } from "../../src/credentials/paths.js";
import { readConfig, writeConfig } from "../../src/credentials/profiles.js";
import { resolveCredentials } from "../../src/credentials/resolve.js";
import { removeCredentials, saveCredentials } from "../../src/credentials/store.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";

const KEY = "ask_resolveTestKey0123456789abcdefghijklmnop";
const OTHER_KEY = "ask_fromTheEnvironment0123456789abcdefghijk";
const URL_A = "http://127.0.0.1:4010";

let home: ReturnType<typeof tempConfigHome>;
/** A machine with no session bus: the keychain cannot be used at all. */
let noBus: NodeJS.ProcessEnv;

beforeEach(() => {
  home = tempConfigHome();
  noBus = { HOME: home.dir, XDG_CONFIG_HOME: home.dir };
});
afterEach(() => home.cleanup());

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe("profiles file", () => {
  it("is written 0600 in a 0700 folder and never holds the key", async () => {
    await saveCredentials({
      profile: "work",
      baseUrl: URL_A,
      apiKey: KEY,
      insecureStorage: true,
      env: noBus,
    });
    const path = configPath(noBus);
    expect(mode(path)).toBe(0o600);
    expect(mode(join(home.dir, "agent-sessions"))).toBe(0o700);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text)).toEqual({
      default_profile: "work",
      profiles: { work: { base_url: URL_A, storage: "insecure-file" } },
    });
  });

  it("keeps settings it does not know when rewriting", async () => {
    await writeConfig(
      { default_profile: null, profiles: {}, theme: "dark" } as Parameters<typeof writeConfig>[0],
      noBus,
    );
    await saveCredentials({
      profile: "a",
      baseUrl: URL_A,
      apiKey: KEY,
      insecureStorage: true,
      env: noBus,
    });
    expect((await readConfig(noBus)) as Record<string, unknown>).toMatchObject({ theme: "dark" });
  });

  it("a broken profiles file is reported with its path, and no key is stored", async () => {
    await writeConfig({ default_profile: null, profiles: {} }, noBus);
    writeFileSync(configPath(noBus), "{ not json");
    const saving = saveCredentials({
      profile: "a",
      baseUrl: URL_A,
      apiKey: KEY,
      insecureStorage: true,
      env: noBus,
    });
    await expect(saving).rejects.toBeInstanceOf(ConfigFileError);
    await expect(saving).rejects.toThrow(configPath(noBus));
    expect(existsSync(insecureKeyPath("a", noBus))).toBe(false);
  });
});

describe("resolveCredentials", () => {
  it("AGENT_SESSIONS_API_KEY wins over the stored key", async () => {
    await saveCredentials({
      profile: "work",
      baseUrl: URL_A,
      apiKey: KEY,
      insecureStorage: true,
      env: noBus,
    });
    const stored = await resolveCredentials({ env: noBus });
    expect(stored).toMatchObject({ source: "insecure-file", apiKey: KEY, profile: "work" });

    const r = await resolveCredentials({ env: { ...noBus, AGENT_SESSIONS_API_KEY: OTHER_KEY } });
    expect(r).toMatchObject({ source: "env", apiKey: OTHER_KEY, profile: "work", baseUrl: URL_A });
    expect(r.warnings).toEqual([]);
  });

  it("the env key is used without touching an unreachable keychain", async () => {
    await writeConfig(
      { default_profile: "work", profiles: { work: { base_url: URL_A, storage: "keychain" } } },
      noBus,
    );
    await expect(resolveCredentials({ env: noBus })).rejects.toBeInstanceOf(
      KeychainUnavailableError,
    );
    const r = await resolveCredentials({ env: { ...noBus, AGENT_SESSIONS_API_KEY: OTHER_KEY } });
    expect(r.source).toBe("env");
  });

  it("picks the profile: option, then AGENT_SESSIONS_PROFILE, then the default", async () => {
    for (const [name, url] of [
      ["a", "http://127.0.0.1:4001"],
      ["b", "http://127.0.0.1:4002"],
      ["c", "http://127.0.0.1:4003/prefix/"],
    ] as const) {
      await saveCredentials({
        profile: name,
        baseUrl: url,
        apiKey: `${KEY}${name}`,
        insecureStorage: true,
        env: noBus,
      });
    }
    const env = { ...noBus, AGENT_SESSIONS_PROFILE: "b" };
    expect(await resolveCredentials({ env: noBus })).toMatchObject({
      profile: "a",
      apiKey: `${KEY}a`,
      baseUrl: "http://127.0.0.1:4001",
    });
    expect(await resolveCredentials({ env })).toMatchObject({ profile: "b", apiKey: `${KEY}b` });
    expect(await resolveCredentials({ env, profile: "c" })).toMatchObject({
      profile: "c",
      apiKey: `${KEY}c`,
      baseUrl: "http://127.0.0.1:4003/prefix",
    });
  });

  it("without a base URL anywhere it says there is no default service", async () => {
    const run = resolveCredentials({ env: { ...noBus, AGENT_SESSIONS_API_KEY: OTHER_KEY } });
    await expect(run).rejects.toBeInstanceOf(MissingBaseUrlError);
    await expect(run).rejects.toMatchObject({ exitCode: 2, profile: "default" });
    const viaEnv = await resolveCredentials({
      env: { ...noBus, AGENT_SESSIONS_API_KEY: OTHER_KEY, AGENT_SESSIONS_BASE_URL: URL_A },
    });
    expect(viaEnv.baseUrl).toBe(URL_A);
  });

  it("no stored key and no env key: a clear error with exit code 3", async () => {
    const run = resolveCredentials({ env: { ...noBus, AGENT_SESSIONS_BASE_URL: URL_A } });
    await expect(run).rejects.toBeInstanceOf(NoCredentialsError);
    await expect(run).rejects.toMatchObject({
      exitCode: 3,
      message:
        "no API key for profile default: run `agent-sessions login` or set AGENT_SESSIONS_API_KEY",
    });
  });

  it("a stored key is never sent to another origin", async () => {
    await saveCredentials({
      profile: "work",
      baseUrl: URL_A,
      apiKey: KEY,
      insecureStorage: true,
      env: noBus,
    });
    const run = resolveCredentials({ env: noBus, baseUrl: "https://elsewhere.example" });
    await expect(run).rejects.toThrow(
      "the key stored for profile work belongs to http://127.0.0.1:4010; it is not sent to https://elsewhere.example",
    );
    // A different path under the same origin is the same service.
    const samePlace = await resolveCredentials({ env: noBus, baseUrl: `${URL_A}/v2` });
    expect(samePlace.apiKey).toBe(KEY);
  });

  it("a plain-text key is read without a warning, and gets its permissions repaired (said once)", async () => {
    await saveCredentials({
      profile: "work",
      baseUrl: URL_A,
      apiKey: KEY,
      insecureStorage: true,
      env: noBus,
    });
    const path = insecureKeyPath("work", noBus);
    expect(mode(path)).toBe(0o600);
    chmodSync(path, 0o644);
    const r = await resolveCredentials({ env: noBus });
    expect(r.warnings).toEqual([expect.stringContaining("mode 0644")]);
    expect(mode(path)).toBe(0o600);
    const again = await resolveCredentials({ env: noBus });
    expect(again.warnings).toEqual([]);
  });

  it("after logout the profile keeps its base URL but has no key", async () => {
    await saveCredentials({
      profile: "work",
      baseUrl: URL_A,
      apiKey: KEY,
      insecureStorage: true,
      env: noBus,
    });
    const removed = await removeCredentials({ profile: "work", env: noBus });
    expect(removed.removed).toEqual([`plain-text file ${insecureKeyPath("work", noBus)}`]);
    expect(existsSync(insecureKeyPath("work", noBus))).toBe(false);
    await expect(resolveCredentials({ env: noBus })).rejects.toBeInstanceOf(NoCredentialsError);
    expect((await readConfig(noBus)).profiles.work).toEqual({ base_url: URL_A });
    expect(await removeCredentials({ profile: "work", env: noBus })).toEqual({
      removed: [],
      known: true,
    });
  });
});

describe("keychain without a usable Secret Service", () => {
  it("no session bus: the error names the cause and both remedies, and nothing is written", async () => {
    const saving = saveCredentials({ profile: "work", baseUrl: URL_A, apiKey: KEY, env: noBus });
    await expect(saving).rejects.toBeInstanceOf(KeychainUnavailableError);
    await expect(saving).rejects.toThrow(/DBUS_SESSION_BUS_ADDRESS is not set/);
    await expect(saving).rejects.toMatchObject({
      exitCode: 1,
      hint: expect.stringMatching(/AGENT_SESSIONS_API_KEY.*login --insecure-storage/),
    });
    expect(existsSync(join(home.dir, "agent-sessions"))).toBe(false);
  });

  it("a bus address that leads nowhere is an error, not a silent switch to the kernel keyring", async () => {
    const env = { ...noBus, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home.dir, "no-bus")}` };
    const account = keychainAccount(`pinned-${process.pid}`, URL_A);
    const storing = keychainSet(account, KEY, { env, timeoutMs: 5000 });
    await expect(storing).rejects.toBeInstanceOf(KeychainUnavailableError);
    await expect(storing).rejects.toThrow(/the keychain reported: .*no-bus/);
  });

  describe("a bus that never answers", () => {
    let bus: Server;
    const sockets = new Set<Socket>();
    let busPath: string;

    beforeEach(async () => {
      busPath = join(home.dir, "bus.sock");
      bus = createServer((s) => {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
      });
      await new Promise<void>((resolve) => bus.listen(busPath, resolve));
    });
    afterEach(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => bus.close(() => resolve()));
    });

    it("is given up after the timeout with the keychain error", async () => {
      const env = { ...noBus, DBUS_SESSION_BUS_ADDRESS: `unix:path=${busPath}` };
      const reading = keychainGet(keychainAccount("work", URL_A), { env, timeoutMs: 1500 });
      await expect(reading).rejects.toBeInstanceOf(KeychainUnavailableError);
      await expect(reading).rejects.toThrow(/did not answer within 1\.5 s/);
    });

    /** A profile whose key is in the keychain, so every command asks the (silent) bus. */
    async function keychainProfile(): Promise<Record<string, string>> {
      await writeConfig(
        { default_profile: "work", profiles: { work: { base_url: URL_A, storage: "keychain" } } },
        noBus,
      );
      return {
        HOME: home.dir,
        XDG_CONFIG_HOME: home.dir,
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${busPath}`,
      };
    }

    // The documented default, with nothing set: the command gives up after 5 s.
    it("a command gives up after 5 s by default (exit 1, the cause and the ways out)", async () => {
      const r = await runCli(["whoami"], { env: await keychainProfile(), timeoutMs: 25_000 });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error: .*the keychain did not answer within 5 s/m);
      expect(r.stderr).toContain("AGENT_SESSIONS_API_KEY");
      expect(r.stderr).toContain("--insecure-storage");
    }, 30_000);

    it("AGENT_SESSIONS_KEYCHAIN_TIMEOUT_MS changes the limit", async () => {
      const env = { ...(await keychainProfile()), AGENT_SESSIONS_KEYCHAIN_TIMEOUT_MS: "1500" };
      const r = await runCli(["whoami"], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/the keychain did not answer within 1\.5 s/);
    });
  });
});
