import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliOnReference, runCli } from "../helpers/cli.js";

/**
 * Choosing, switching and deleting profiles, and what a broken profiles file still allows,
 * through the built binary without a keychain (plain-text storage; the keychain side is in
 * test/keychain/).
 */

const cli = cliOnReference({ seed: 12, sessionCount: 2, paceMs: 0 });
const configFile = () => join(cli.home.dir, "agent-sessions", "config.json");
const keyFile = (profile: string) =>
  join(cli.home.dir, "agent-sessions", "credentials", `${profile}.key`);
const config = () => JSON.parse(readFileSync(configFile(), "utf8")) as Record<string, unknown>;

async function loginPlain(profile: string, keyName = "member") {
  const r = await runCli(
    ["login", "--insecure-storage", "--profile", profile, "--base-url", cli.server.url],
    { env: cli.env(), input: `${cli.server.key(keyName)}\n` },
  );
  expect(r.code, r.stderr).toBe(0);
}

describe("a broken profiles file", () => {
  for (const [what, text] of [
    ["not JSON", "{ this is not json"],
    ["the wrong shape", '{"profiles": {"work": {"base_url": 42}}}'],
  ]) {
    it(`(${what}) does not block a run whose base URL and key come from the environment`, async () => {
      mkdirSync(join(cli.home.dir, "agent-sessions"), { recursive: true });
      writeFileSync(configFile(), text as string);
      const r = await runCli(["whoami", "--json"], {
        env: cli.env({
          AGENT_SESSIONS_API_KEY: cli.server.key("member"),
          AGENT_SESSIONS_BASE_URL: cli.server.url,
        }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ key_source: "env", role: "member" });
      expect(r.stderr).toMatch(/^warning: ignoring the profiles file \(.*config\.json/m);
      expect(r.stderr).toMatch(/Fix or remove .*config\.json/);
      // The file is left as it was, for the user to fix.
      expect(readFileSync(configFile(), "utf8")).toBe(text);
    });
  }

  it("still stops a run that needs it (no key from the environment)", async () => {
    mkdirSync(join(cli.home.dir, "agent-sessions"), { recursive: true });
    writeFileSync(configFile(), "{ broken");
    const r = await runCli(["whoami"], {
      env: cli.env({ AGENT_SESSIONS_BASE_URL: cli.server.url }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*config\.json is not valid JSON/m);
    expect(r.stderr).toMatch(/^hint: Fix or remove/m);
  });
});

describe("--profile with a name that does not exist", () => {
  it("says no such profile and lists the ones there are (exit 2)", async () => {
    await loginPlain("work");
    await loginPlain("ci");
    const r = await runCli(["--profile", "nope", "whoami"], { env: cli.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: no such profile nope \(from --profile\); profiles: ci, work$/m,
    );
    expect(r.stderr).toMatch(/^hint: .*agent-sessions login --profile nope --base-url URL/m);
    expect(r.stderr).not.toMatch(/run `agent-sessions login`/);

    const fromEnv = await runCli(["sessions"], {
      env: cli.env({ AGENT_SESSIONS_PROFILE: "nope" }),
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain("no such profile nope (from AGENT_SESSIONS_PROFILE)");
  });

  it("with no profiles at all, says there are none yet", async () => {
    const r = await runCli(["--profile", "nope", "sessions"], { env: cli.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no such profile nope (from --profile); there are no profiles yet");
    // Nothing to pick from: the hint says how to make it.
    expect(r.stderr).toContain(
      "hint: Create it with `agent-sessions login --profile nope --base-url URL`.",
    );
    expect(r.stderr).not.toContain("Pick one of them");
  });

  it("is fine when the base URL and key come from the environment (a label only)", async () => {
    const r = await runCli(["--profile", "scratch", "whoami", "--json"], {
      env: cli.env({
        AGENT_SESSIONS_API_KEY: cli.server.key("member"),
        AGENT_SESSIONS_BASE_URL: cli.server.url,
      }),
    });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe("profiles use / remove", () => {
  it("use switches the default profile that commands pick", async () => {
    await loginPlain("work", "member");
    await loginPlain("admin", "admin");
    expect(config().default_profile).toBe("work");

    const use = await runCli(["profiles", "use", "admin"], { env: cli.env() });
    expect(use.code, use.stderr).toBe(0);
    expect(use.stdout).toBe("Default profile is now admin (was work).\n");
    expect(config().default_profile).toBe("admin");
    const who = await runCli(["whoami", "--json"], { env: cli.env() });
    expect(JSON.parse(who.stdout)).toMatchObject({ profile: "admin", role: "admin" });
    const list = await runCli(["profiles"], { env: cli.env() });
    expect(list.stdout).toMatch(/^>\*\s+admin\b/m);

    const nope = await runCli(["profiles", "use", "nope"], { env: cli.env() });
    expect(nope.code).toBe(2);
    expect(nope.stderr).toMatch(/no such profile nope .*profiles: admin, work/);
    expect(config().default_profile).toBe("admin");
  });

  it("remove deletes the profile and its stored key; the default is cleared if it was it", async () => {
    await loginPlain("work");
    await loginPlain("ci");
    expect(existsSync(keyFile("work"))).toBe(true);

    const rm = await runCli(["profiles", "remove", "work"], { env: cli.env() });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(`Removed the key of work from plain-text file ${keyFile("work")}.`);
    expect(rm.stdout).toContain("Removed profile work.");
    expect(rm.stdout).toContain("It was the default profile; choose another with");
    expect(existsSync(keyFile("work"))).toBe(false);
    expect(config()).toEqual({
      default_profile: null,
      profiles: { ci: { base_url: cli.server.url, storage: "insecure-file" } },
    });
    expect(existsSync(keyFile("ci"))).toBe(true);

    const again = await runCli(["profiles", "rm", "work"], { env: cli.env() });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("no such profile work");
  });

  it("a mistyped subcommand gets a suggestion", async () => {
    const r = await runCli(["profiles", "us", "work"], { env: cli.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'us'/);
    expect(r.stderr).toContain("Did you mean use?");
  });
});
