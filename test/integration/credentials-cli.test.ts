import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliOnReference, runCli } from "../helpers/cli.js";

/**
 * login / logout / profiles through the built binary, on a machine without a session bus
 * (runCli passes no DBUS_SESSION_BUS_ADDRESS): the keychain is unusable, so only the error
 * and the plain-text opt-in can be exercised here. The real keychain is test/keychain/.
 */

const cli = cliOnReference({ seed: 11, sessionCount: 2, paceMs: 0 });
const INVALID_KEY = "ask_thisKeyWasNeverIssued000000000000000000000";
const configDir = () => join(cli.home.dir, "agent-sessions");
const keyFile = (profile: string) => join(configDir(), "credentials", `${profile}.key`);
const mode = (path: string) => statSync(path).mode & 0o777;

function login(args: string[], input: string, extra: Record<string, string> = {}) {
  return runCli(["login", "--base-url", cli.server.url, ...args], { env: cli.env(extra), input });
}

describe("login without a keychain", () => {
  it("fails with the cause and both remedies, and writes nothing", async () => {
    const key = cli.server.key("owner");
    const r = await login([], `${key}\n`);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: the OS keychain is unavailable: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service can be reached\n" +
        "hint: Set AGENT_SESSIONS_API_KEY for this shell, or run `agent-sessions login --insecure-storage` to keep the key in a plain-text file (mode 0600).\n",
    );
    expect(r.stdout).toBe("");
    expect(readdirSync(cli.home.dir)).toEqual([]);
  });

  it("--insecure-storage writes a 0600 file, warns, and the key works from then on", async () => {
    const key = cli.server.key("member");
    const r = await login(["--insecure-storage", "--profile", "ci"], `${key}\n`);
    expect(r.code).toBe(0);
    const path = keyFile("ci");
    expect(mode(path)).toBe(0o600);
    expect(mode(join(configDir(), "credentials"))).toBe(0o700);
    expect(readFileSync(path, "utf8").trim()).toBe(key);
    expect(r.stderr).toContain(`warning: the API key is stored in plain text at ${path}`);
    expect(r.stdout).toContain("Logged in to");
    expect(r.stdout).toMatch(/organization\s+org_\S+ · role member/);
    expect(r.stdout).toMatch(/effective scopes\s+sessions:read/);
    expect(r.stdout).toMatch(/expires\s+never/);
    expect(r.stdout).toContain(`stored in         plain-text file ${path}`);
    expect(r.stdout).toContain(key.slice(-4));
    expect(`${r.stdout}${r.stderr}`).not.toContain(key);

    const config = readFileSync(join(configDir(), "config.json"), "utf8");
    expect(config).not.toContain(key);
    expect(JSON.parse(config)).toEqual({
      default_profile: "ci",
      profiles: { ci: { base_url: cli.server.url, storage: "insecure-file" } },
    });

    // Said where the choice was made (above) and by whoami, not on every command.
    const who = await runCli(["whoami", "--json"], { env: cli.env() });
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ key_source: "insecure-file", profile: "ci" });
    expect(who.stderr).toContain(`warning: the API key is stored in plain text at ${path}`);
    const list = await runCli(["sessions"], { env: cli.env() });
    expect(list.code).toBe(0);
    expect(list.stderr).not.toContain("plain text");

    // AGENT_SESSIONS_API_KEY wins over the stored key (and the file is not even read).
    const over = await runCli(["whoami", "--json"], {
      env: cli.env({ AGENT_SESSIONS_API_KEY: cli.server.key("owner") }),
    });
    expect(over.code).toBe(0);
    expect(JSON.parse(over.stdout)).toMatchObject({ key_source: "env", role: "owner" });
    expect(over.stderr).toBe("");
  });

  it("repairs a key file that others can read", async () => {
    await login(["--insecure-storage"], `${cli.server.key("member")}\n`);
    const path = keyFile("default");
    chmodSync(path, 0o644);
    const r = await login(["--insecure-storage"], `${cli.server.key("admin")}\n`);
    expect(r.code).toBe(0);
    expect(mode(path)).toBe(0o600);
    expect(r.stderr).toContain(`${path} was readable by others (mode 0644); its mode is now 0600`);
    expect(readFileSync(path, "utf8").trim()).toBe(cli.server.key("admin"));
  });

  it("warns when the key expires within 7 days", async () => {
    const r = await login(["--insecure-storage"], `${cli.server.key("expiring")}\n`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/expires\s+expires in (2d|3d)/);
    expect(r.stderr).toMatch(/warning: this key expires in (2d|3d)/);
  });

  it("shows the scopes a demotion took away", async () => {
    const r = await login(["--insecure-storage"], `${cli.server.key("demoted")}\n`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/narrowed by role\s+.*integrations:write.*role member/);
  });
});

describe("login refuses", () => {
  for (const [label, key, message] of [
    ["an invalid key", () => INVALID_KEY, /^error: Invalid API key$/m],
    ["an expired key", () => cli.server.key("expired"), /^error: API key expired at /m],
  ] as const) {
    it(`${label}: the server's message, exit 3, nothing stored`, async () => {
      const k = key();
      const r = await login(["--insecure-storage"], `${k}\n`);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(message);
      expect(`${r.stdout}${r.stderr}`).not.toContain(k);
      expect(readdirSync(cli.home.dir)).toEqual([]);
    });
  }

  it("a key given as an argument, without repeating it", async () => {
    const key = cli.server.key("owner");
    for (const args of [[key], [`--key=${key}`], ["--api-key", key]]) {
      const r = await login(["--insecure-storage", ...args], "");
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: login takes no arguments \(\d given, not shown\)/);
      expect(r.stderr).not.toContain(key);
      expect(readdirSync(cli.home.dir)).toEqual([]);
    }
  });

  it("empty stdin, and a key with spaces in it", async () => {
    const empty = await login(["--insecure-storage"], "");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("error: no API key on stdin");
    const spaced = await login(["--insecure-storage"], "ask_abc def\n");
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain("contains spaces, control or non-ASCII characters");
    expect(readdirSync(cli.home.dir)).toEqual([]);
  });

  it("without any base URL: there is no default service", async () => {
    const r = await runCli(["login", "--insecure-storage"], {
      env: cli.env(),
      input: `${cli.server.key("owner")}\n`,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: no base URL for profile default");
  });
});

describe("logout and profiles", () => {
  it("logout removes the plain-text key and says so; again, says nothing was stored", async () => {
    await login(["--insecure-storage", "--profile", "work"], `${cli.server.key("owner")}\n`);
    const path = keyFile("work");
    const out = await runCli(["logout", "--profile", "work"], { env: cli.env() });
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(
      `Logged out of profile work: removed the key from plain-text file ${path}.\n`,
    );
    expect(existsSync(path)).toBe(false);

    const again = await runCli(["logout", "--profile", "work"], { env: cli.env() });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("No key was stored for profile work; nothing to remove.\n");
  });

  it("profiles lists default, base URL, storage and the env override", async () => {
    await login(["--insecure-storage", "--profile", "a"], `${cli.server.key("owner")}\n`);
    await login(["--insecure-storage", "--profile", "b"], `${cli.server.key("member")}\n`);
    await runCli(["logout", "--profile", "b"], { env: cli.env() });

    const text = await runCli(["profiles"], { env: cli.env() });
    expect(text.code).toBe(0);
    const lines = text.stdout.split("\n");
    expect(lines[0]).toMatch(/^\s+PROFILE\s+BASE URL\s+KEY STORED IN$/);
    expect(lines[1]).toMatch(
      new RegExp(`^>\\*\\s+a\\s+${cli.server.url}\\s+plain-text file ${keyFile("a")}$`),
    );
    expect(lines[2]).toMatch(new RegExp(`^\\s+b\\s+${cli.server.url}\\s+none \\(logged out\\)$`));
    expect(text.stdout).not.toContain("AGENT_SESSIONS_API_KEY is set");

    const json = await runCli(["profiles", "--json"], {
      env: cli.env({ AGENT_SESSIONS_API_KEY: "ask_somethingElse", AGENT_SESSIONS_PROFILE: "b" }),
    });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      config_path: join(configDir(), "config.json"),
      default_profile: "a",
      active_profile: "b",
      env_override: true,
      profiles: [
        {
          name: "a",
          default: true,
          active: false,
          base_url: cli.server.url,
          storage: "insecure-file",
          location: keyFile("a"),
          env_override: true,
        },
        {
          name: "b",
          default: false,
          active: true,
          base_url: cli.server.url,
          storage: null,
          location: null,
          env_override: true,
        },
      ],
    });
  });

  it("profiles with none yet says how to create one", async () => {
    const r = await runCli(["profiles"], { env: cli.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("No profiles yet");
    expect(r.stdout).toContain("agent-sessions login --base-url URL");
  });
});
