import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/ui/App.js";
import type { AppServices } from "../../src/ui/model/services.js";
import {
  mountTree,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * The CLI's start: the first frame is drawn before the client has loaded (App's `connect`
 * builds the services once that frame is out), then the signed-in screen takes over.
 */

afterEach(unmountReference);

function deferred<T>() {
  let resolve: (v: T) => void = () => {};
  let reject: (e: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const SIZE = { columns: 120, rows: 40 };

describe("the start-up frame", () => {
  it("is drawn before the services are asked for; keys typed meanwhile reach the screen that follows", async () => {
    const fx = await startReference({ preload: false });
    const services = fx.services;
    const built = deferred<AppServices | null>();
    let frameWhenAsked: string | null = null;
    let asks = 0;
    const h = mountTree(
      <App
        services={null}
        connect={() => {
          asks++;
          frameWhenAsked = h.frame();
          return built.promise;
        }}
        profile="work"
        baseUrl={fx.server.url}
        onExit={() => {}}
      />,
      SIZE,
    );
    await waitForContent(h, "loading sessions…");
    expect(h.frame()).toContain("◌ connecting…");
    // Typed before the list exists: help opens once it does.
    await pressKey(h, "?");
    built.resolve(services);
    await waitForContent(h, "Everywhere");
    await pressKey(h, "?");
    await waitForContent(h, "Sessions 4/4");
    expect(asks).toBe(1);
    expect(frameWhenAsked).toContain("loading sessions…");
  });

  it("shows the login screen when there are no services to build", async () => {
    const h = mountTree(
      <App
        services={null}
        connect={async () => null}
        profile="work"
        baseUrl="http://127.0.0.1:1"
        onExit={() => {}}
      />,
      SIZE,
    );
    await waitForContent(h, /paste/i);
  });

  it("hands a failure to build them to onError", async () => {
    const failures: unknown[] = [];
    const built = deferred<AppServices | null>();
    const h = mountTree(
      <App
        services={null}
        connect={() => built.promise}
        onError={(e) => failures.push(e)}
        profile="work"
        baseUrl="http://127.0.0.1:1"
        onExit={() => {}}
      />,
      SIZE,
    );
    await waitForContent(h, "◌ connecting…");
    built.reject(new Error("journal folder not writable"));
    await built.promise.catch(() => {});
    await new Promise((r) => setImmediate(r));
    expect(failures.map((e) => (e as Error).message)).toEqual(["journal folder not writable"]);
  });
});
