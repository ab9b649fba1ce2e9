import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { signIn } from "../../src/cli/tui/signIn.js";
import { ApiClient } from "../../src/client/apiClient.js";
import { KeychainUnavailableError } from "../../src/credentials/errors.js";
import { assertKeychainReachable } from "../../src/credentials/keychain.js";
import { insecureKeyPath } from "../../src/credentials/paths.js";
import { resolveCredentials } from "../../src/credentials/resolve.js";
import { App } from "../../src/ui/App.js";
import type { KeyStorage, Problem } from "../../src/ui/model/login.js";
import { type AppServices, loadFirstScreen } from "../../src/ui/model/services.js";
import { hasDbusDaemon, startBareBus } from "../helpers/dbus.js";
import { stopAfterTest } from "../helpers/stopAfterTest.js";
import {
  mountTree,
  pressKey,
  startReference,
  typeText,
  type UiFixture,
  type UiHarness,
  unmountReference,
  waitForAbsence,
  waitForContent,
} from "../helpers/ui.js";

/** The login screen hands the pasted key to onLogin and moves on when it succeeds. */

afterEach(unmountReference);

/** The services the CLI builds for a key the service refuses, their first screen loading. */
function refusedServices(fx: UiFixture, apiKey: string): AppServices {
  const bad = buildServices({ baseUrl: fx.server.url, apiKey }, { tuning: { maxAttempts: 1 } });
  stopAfterTest(() => bad.dispose());
  loadFirstScreen(bad.services);
  return bad.services;
}

/** The App on the reference service with a key it refuses, from `keySource`, in 120×30. */
function mountRefused(
  fx: UiFixture,
  apiKey: string,
  keySource: "keychain" | "env",
  onLogin?: (key: string, storage: KeyStorage) => Promise<AppServices>,
) {
  return mountTree(
    <App
      services={refusedServices(fx, apiKey)}
      keySource={keySource}
      profile="work"
      baseUrl={fx.server.url}
      onExit={() => {}}
      {...(onLogin ? { onLogin } : {})}
    />,
    { columns: 120, rows: 30 },
  );
}

describe("login", () => {
  it("shows the service's refusal of a bad key, then signs in with a good one", async () => {
    const fx = await startReference({ preload: false });
    const good = fx.server.key("owner");
    const baseUrl = fx.server.url;
    const services = fx.services;
    const tried: string[] = [];
    const h = mountTree(
      <App
        services={null}
        profile="work"
        baseUrl={baseUrl}
        onExit={() => {}}
        onLogin={async (key) => {
          tried.push(key);
          // The key is checked by the service, as the CLI's login does (storing it is the
          // end-to-end test's part): whatever the service says is what the screen shows.
          await new ApiClient({ baseUrl, apiKey: key, maxAttempts: 1 }).verify();
          return services;
        }}
      />,
      { columns: 120, rows: 30 },
    );
    await waitForContent(h, "sign in");
    await pressKey(h, "enter");
    await waitForContent(h, "Paste a key first");

    // Pasted keys arrive in one piece.
    await pressKey(h, "ask_not_a_real_key_0000");
    await pressKey(h, "enter");
    // The reference service's own words for an unknown key.
    let frame = await waitForContent(h, "Invalid API key");
    expect(frame).not.toContain("ask_not_a_real_key");
    expect(frame).not.toContain("demo-owner");
    // The field takes keys again once React has run the effects of that frame's commit
    // (scheduled, like the commit, on the event loop): a human cannot type that fast.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));

    await pressKey(h, "\u0015"); // Ctrl-U clears the field
    await pressKey(h, good);
    frame = await waitForContent(h, `${good.length} characters`);
    expect(frame).not.toContain(good);
    await pressKey(h, "enter");
    await waitForContent(h, fx.ids[0] as string);
    await waitForContent(h, "demo-owner");
    expect(tried).toEqual(["ask_not_a_real_key_0000", good]);
    expect(h.frame()).not.toContain(good);
  });

  it("a key pasted with its newline signs in without another Enter", async () => {
    const fx = await startReference({ preload: false });
    const good = fx.server.key("owner");
    const services = fx.services;
    const tried: string[] = [];
    const h = mountTree(
      <App
        services={null}
        profile="work"
        baseUrl={fx.server.url}
        onExit={() => {}}
        onLogin={async (key) => {
          tried.push(key);
          return services;
        }}
      />,
      { columns: 120, rows: 30 },
    );
    await waitForContent(h, "sign in");
    await pressKey(h, `${good}\r`);
    await waitForContent(h, "demo-owner");
    expect(tried).toEqual([good]);
    expect(h.frame()).not.toContain(good);
  });

  describe.runIf(process.platform === "linux")("without a keychain", () => {
    let config = "";
    let warnings: string[] = [];
    const oneLine = (f: string) =>
      f
        .split("\n")
        .map((l) => l.replace(/^[│ ]+|[│ ]+$/g, ""))
        .join(" ");
    afterEach(() => {
      if (config) rmSync(config, { recursive: true, force: true });
      config = "";
      warnings = [];
    });

    /** The App with the terminal UI's own sign-in, storing under a throwaway config home. */
    function mountSignIn(
      f: UiFixture,
      env: NodeJS.ProcessEnv,
      keychainProblem: Problem | null,
    ): UiHarness {
      const services = f.services;
      const target = {
        profile: "work",
        baseUrl: f.server.url,
        organizationId: null,
        organizationFrom: null,
      };
      return mountTree(
        <App
          services={null}
          profile="work"
          baseUrl={f.server.url}
          onExit={() => {}}
          keychainProblem={keychainProblem}
          keyFile={insecureKeyPath("work", env)}
          onLogin={signIn({
            target,
            env,
            keychain: { timeoutMs: 10_000 },
            secret: () => {},
            warn: (line) => warnings.push(line),
            open: async () => services,
          })}
        />,
        { columns: 120, rows: 36 },
      );
    }

    function noBus(): { env: NodeJS.ProcessEnv; problem: Problem } {
      config = mkdtempSync(join(tmpdir(), "as-login-nokeychain-"));
      // No session bus and no runtime dir: no Secret Service can be reached.
      const env = { XDG_CONFIG_HOME: config, HOME: config };
      try {
        assertKeychainReachable(env);
      } catch (e) {
        // As the CLI hands it over: the reason, and the ways out.
        if (e instanceof KeychainUnavailableError) {
          return { env, problem: { message: e.reason, hint: e.hint } };
        }
      }
      throw new Error("a keychain was reachable without a session bus");
    }

    it("says so before a key is pasted, and r signs in for this run only, storing nothing", async () => {
      const fx = await startReference({ preload: false });
      const { env, problem } = noBus();
      const h = mountSignIn(fx, env, problem);
      let frame = oneLine(await waitForContent(h, "No keychain here"));
      expect(frame).toContain("AGENT_SESSIONS_API_KEY");
      await pressKey(h, fx.server.key("owner"));
      await pressKey(h, "enter");
      frame = oneLine(await waitForContent(h, "use it for this run only"));
      expect(frame).toContain("The key cannot go to the keychain");
      expect(frame).toContain("keep it in a plain-text file");
      // A long path wraps wherever the line ends.
      expect(frame.replace(/\s/g, "")).toContain(insecureKeyPath("work", env));
      await pressKey(h, "r");
      await waitForContent(h, "demo-owner");
      // Nothing was written: no profiles file, no key file.
      expect(readdirSync(config)).toEqual([]);
      expect(warnings).toEqual([]);
    });

    it("f keeps the key in the plain-text file (mode 0600), with its warning", async () => {
      const fx = await startReference({ preload: false });
      const { env, problem } = noBus();
      const h = mountSignIn(fx, env, problem);
      await waitForContent(h, "No keychain here");
      const key = fx.server.key("owner");
      await pressKey(h, key);
      await pressKey(h, "enter");
      await waitForContent(h, "use it for this run only");
      // Esc goes back to the key; Enter asks again.
      await pressKey(h, "escape");
      await waitForAbsence(h, "use it for this run only");
      await pressKey(h, "enter");
      await waitForContent(h, "use it for this run only");
      await pressKey(h, "f");
      await waitForContent(h, "demo-owner");
      const path = insecureKeyPath("work", env);
      expect(readFileSync(path, "utf8").trim()).toBe(key);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(warnings.join("\n")).toContain(`the API key is stored in plain text at ${path}`);
      // The next run finds it there.
      const creds = await resolveCredentials({ profile: "work", env });
      expect(creds.source).toBe("insecure-file");
    });

    it.runIf(hasDbusDaemon)(
      "on a session bus with no Secret Service, storing fails and the screen offers the other places",
      async () => {
        const fx = await startReference({ preload: false });
        config = mkdtempSync(join(tmpdir(), "as-login-nokeychain-"));
        const bus = await startBareBus();
        try {
          const env = {
            XDG_CONFIG_HOME: config,
            HOME: config,
            DBUS_SESSION_BUS_ADDRESS: bus.address,
          };
          // The bus is there, so nothing is known to be missing before the key is pasted.
          expect(() => assertKeychainReachable(env)).not.toThrow();
          const h = mountSignIn(fx, env, null);
          await waitForContent(h, "then kept in the OS keychain");
          await pressKey(h, fx.server.key("owner"));
          await pressKey(h, "enter");
          const frame = oneLine(await waitForContent(h, "use it for this run only", 15_000));
          expect(frame).toContain("no Secret Service answers on the session bus");
          expect(frame).not.toContain("✗");
          await pressKey(h, "r");
          await waitForContent(h, "demo-owner");
          expect(readdirSync(config)).toEqual([]);
        } finally {
          await bus.stop();
        }
      },
      30_000,
    );
  });

  it("a key the service refuses opens the sign-in screen with the refusal, not an empty list", async () => {
    const fx = await startReference({ preload: false });
    const good = fx.server.key("owner");
    const services = fx.services;
    const h = mountRefused(fx, "ask_revoked_key_0000", "keychain", async (key, storage) => {
      expect(storage).toBe("keychain");
      await new ApiClient({ baseUrl: fx.server.url, apiKey: key }).verify();
      return services;
    });
    const frame = await waitForContent(h, "sign in");
    // The service's own words, the key's source, and the way out.
    expect(frame).toContain("The service refused the key stored in the keychain: Invalid API key");
    expect(frame).toContain("Paste a valid key to sign in: it replaces the refused one.");
    expect(frame).not.toContain("No API key is stored");
    expect(frame).not.toContain("no sessions");
    expect(frame).not.toContain("ask_revoked_key_0000");
    await pressKey(h, good);
    await pressKey(h, "enter");
    await waitForContent(h, "demo-owner");
    await waitForContent(h, fx.ids[0] as string);
  });

  it("a refused AGENT_SESSIONS_API_KEY says that the variable wins in later runs", async () => {
    const fx = await startReference({ preload: false });
    const h = mountRefused(fx, "ask_env_key_0000", "env");
    const frame = await waitForContent(h, "AGENT_SESSIONS_API_KEY still wins");
    expect(frame).toContain("The service refused the key in AGENT_SESSIONS_API_KEY");
  });

  it("Esc on the login screen quits", async () => {
    let exits = 0;
    const h = mountTree(
      <App
        services={null}
        profile="work"
        baseUrl="http://127.0.0.1:1"
        onExit={() => {
          exits++;
        }}
      />,
      { columns: 100, rows: 24 },
    );
    await waitForContent(h, "sign in");
    await typeText(h, "abc");
    await pressKey(h, "escape");
    expect(exits).toBe(1);
  });
});
