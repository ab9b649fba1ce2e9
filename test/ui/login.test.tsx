import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { KEYCHAIN_REMEDIES, KeychainUnavailableError } from "../../src/credentials/errors.js";
import { assertKeychainReachable } from "../../src/credentials/keychain.js";
import { saveCredentials } from "../../src/credentials/store.js";
import { App } from "../../src/ui/App.js";
import {
  pressKey,
  renderUi,
  startUiFixture,
  typeText,
  type UiFixture,
  type UiHarness,
  waitForContent,
} from "../helpers/ui.js";

/** The login screen hands the pasted key to onLogin and moves on when it succeeds. */

let fx: UiFixture | null = null;
let h: UiHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await fx?.close();
  fx = null;
});

describe("login", () => {
  it("shows the service's refusal of a bad key, then signs in with a good one", async () => {
    fx = await startUiFixture({ preload: false });
    const good = fx.server.key("owner");
    const baseUrl = fx.server.url;
    const services = fx.services;
    const tried: string[] = [];
    h = renderUi(
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
    fx = await startUiFixture({ preload: false });
    const good = fx.server.key("owner");
    const services = fx.services;
    const tried: string[] = [];
    h = renderUi(
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

  it.runIf(process.platform === "linux")(
    "without a keychain, names the two ways out before a key is pasted and when storing fails",
    async () => {
      fx = await startUiFixture({ preload: false });
      const services = fx.services;
      const config = mkdtempSync(join(tmpdir(), "as-login-nokeychain-"));
      // No session bus and no runtime dir: no Secret Service can be reached.
      const env = { XDG_CONFIG_HOME: config, HOME: config };
      let problem: KeychainUnavailableError | null = null;
      try {
        assertKeychainReachable(env);
      } catch (e) {
        if (e instanceof KeychainUnavailableError) problem = e;
      }
      expect(problem).not.toBeNull();
      try {
        h = renderUi(
          <App
            services={null}
            profile="work"
            baseUrl={fx.server.url}
            onExit={() => {}}
            keychainProblem={problem ? { message: problem.reason, hint: problem.hint } : null}
            onLogin={async (key) => {
              await saveCredentials({
                profile: "work",
                baseUrl: fx?.server.url ?? "",
                apiKey: key,
                env,
              });
              return services;
            }}
          />,
          { columns: 120, rows: 34 },
        );
        const oneLine = (f: string) =>
          f
            .split("\n")
            .map((l) => l.replace(/^[│ ]+|[│ ]+$/g, ""))
            .join(" ");
        let frame = oneLine(await waitForContent(h, "No keychain here"));
        expect(frame).toContain("AGENT_SESSIONS_API_KEY");
        expect(frame).toContain("agent-sessions login --insecure-storage");
        expect(frame).toContain(KEYCHAIN_REMEDIES.replace(/\s+/g, " ").slice(0, 40));

        await pressKey(h, fx.server.key("owner"));
        await pressKey(h, "enter");
        frame = oneLine(await waitForContent(h, "✗ the OS keychain is unavailable"));
        // The failure says the ways out as well, in the credentials layer's words.
        const after = frame.slice(frame.indexOf("✗ the OS keychain"));
        expect(after).toContain("AGENT_SESSIONS_API_KEY");
        expect(after).toContain("--insecure-storage");
      } finally {
        rmSync(config, { recursive: true, force: true });
      }
    },
  );

  it("Esc on the login screen quits", async () => {
    let exits = 0;
    h = renderUi(
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
