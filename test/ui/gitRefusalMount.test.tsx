import { afterEach, describe, it } from "vitest";
import { buildServices, type ServicesHandle } from "../../src/cli/tui/buildServices.js";
import { App } from "../../src/ui/App.js";
import { CONFIGURE_ACME, documentedService, KEY, SESSION } from "../helpers/documentedService.js";
import type { ScriptedServer } from "../helpers/scriptedHttpServer.js";
import { pressKey, renderUi, type UiHarness, waitForContent } from "../helpers/ui.js";

/**
 * A push the code hosting app cannot make, in the UI, on either mount: the failure names the
 * installation's configure URL (the app read under the mount the sessions were found at, not
 * at the web dashboard's path). A scripted service following the real one's docs, through the
 * production wiring (buildServices).
 */

let server: ScriptedServer | null = null;
let handle: ServicesHandle | null = null;
let h: UiHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await handle?.dispose();
  handle = null;
  await server?.close();
  server = null;
});

describe.each(["cloud", "interface"] as const)("on the %s mount", (mount) => {
  it("a refused push says where to grant the code hosting app access", async () => {
    server = await documentedService(mount);
    handle = buildServices(
      { baseUrl: server.url, apiKey: KEY },
      { tuning: { maxAttempts: 1, backoffBaseMs: 20 } },
    );
    const { services, client } = handle;
    await services.identity.getState().load(client);
    await services.sessions.getState().load();
    // Wide enough for the whole failure on the status line.
    h = renderUi(
      <App services={services} profile="work" baseUrl={server.url} onExit={() => {}} />,
      { columns: 400, rows: 30 },
    );
    await waitForContent(h, SESSION);
    await pressKey(h, "p");
    await waitForContent(h, "Push — confirm");
    await pressKey(h, "y");
    await waitForContent(
      h,
      `No installation of the code hosting app reaches acme/other: grant it access at ${CONFIGURE_ACME}`,
      10_000,
    );
  });
});
