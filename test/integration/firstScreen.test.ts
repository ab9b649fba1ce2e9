import { afterEach, describe, expect, it } from "vitest";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { firstScreenAnswered, loadFirstScreen } from "../../src/ui/model/services.js";
import { hang, json, type Responder, startScriptedServer } from "../helpers/scriptedHttpServer.js";
import { closeAfterTest, stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * The CLI asks for the identity and the first page before the UI mounts and holds the first
 * frame until both are answered, or not longer than its limit.
 */

const KEY_INFO = {
  valid: true,
  key_id: "key_1",
  name: "k",
  user_id: "usr_1",
  scopes: ["sessions:read"],
  effective_scopes: ["sessions:read"],
};
const ME = { tenant_id: "org_1", principal_id: "usr_1", scopes: ["sessions:read"] };
const PAGE = { sessions: [{ session_id: "ses_a", state: "running" }], has_more: false };

afterEach(stopStarted);

async function withServer(listAnswer: Responder) {
  const srv = closeAfterTest(await startScriptedServer());
  srv.fallback((req, res, body, n) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/api/cloud/auth/verify") return json(200, KEY_INFO)(req, res, body, n);
    if (path === "/api/v1/me") return json(200, ME)(req, res, body, n);
    if (path === "/api/sessions") return listAnswer(req, res, body, n);
    return json(404, { detail: "not here" })(req, res, body, n);
  });
  const handle = buildServices(
    { baseUrl: srv.url, apiKey: "k".repeat(24) },
    { tuning: { maxAttempts: 1, timeoutMs: 60_000 } },
  );
  stopAfterTest(() => handle.dispose());
  return { srv, services: handle.services };
}

describe("the first screen", () => {
  it("is held until the identity and the list are both in, and asked for once", async () => {
    const { srv, services } = await withServer(json(200, PAGE));
    loadFirstScreen(services);
    loadFirstScreen(services); // the UI's mount asks again: nothing more is sent
    await firstScreenAnswered(services, 60_000);
    expect(services.identity.getState().identity?.principal_id).toBe("usr_1");
    expect(services.sessions.getState().items.map((s) => s.session_id)).toEqual(["ses_a"]);
    const paths = srv.seen.map((r) => r.url.split("?")[0]).sort();
    expect(paths).toEqual(["/api/cloud/auth/verify", "/api/sessions", "/api/v1/me"]);
  });

  it("is not held past a failed list: the error is there to show", async () => {
    const { services } = await withServer(json(500, { detail: "list broke" }));
    loadFirstScreen(services);
    await firstScreenAnswered(services, 60_000);
    expect(services.sessions.getState().error?.message).toContain("list broke");
    expect(services.sessions.getState().loadedAt).toBeNull();
  });

  it("is drawn without the list when the service does not answer within the hold", async () => {
    const { services } = await withServer(hang);
    loadFirstScreen(services);
    await firstScreenAnswered(services, 50);
    // The list is still on its way and the frame does not wait for it.
    expect(services.sessions.getState().loading).toBe(true);
    expect(services.sessions.getState().loadedAt).toBeNull();
  });
});
