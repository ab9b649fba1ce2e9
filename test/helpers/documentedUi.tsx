import { buildServices, type ServicesHandle } from "../../src/cli/tui/buildServices.js";
import { App, type AppProps } from "../../src/ui/App.js";
import { type DocumentedServiceOptions, documentedService, KEY } from "./documentedService.js";
import type { ScriptedServer } from "./scriptedHttpServer.js";
import { renderUi, type UiHarness } from "./ui.js";

/**
 * The App on the documented service (documentedService.ts) through the production wiring
 * (buildServices): identity and the list read before the first frame, as the `ui` command
 * does. `close` stops the UI, its services and the service.
 */
export interface DocumentedUi {
  server: ScriptedServer;
  handle: ServicesHandle;
  h: UiHarness;
  close(): Promise<void>;
}

export async function startDocumentedUi(
  mount: "cloud" | "interface",
  size: { columns: number; rows: number },
  opts: { service?: DocumentedServiceOptions; app?: Partial<AppProps> } = {},
): Promise<DocumentedUi> {
  const server = await documentedService(mount, opts.service);
  let handle: ServicesHandle | null = null;
  try {
    handle = buildServices(
      { baseUrl: server.url, apiKey: KEY },
      { tuning: { maxAttempts: 1, backoffBaseMs: 20 } },
    );
    const { services, client } = handle;
    await services.identity.getState().load(client);
    await services.sessions.getState().load();
  } catch (e) {
    await handle?.dispose();
    await server.close();
    throw e;
  }
  const services = handle.services;
  const h = renderUi(
    <App services={services} profile="work" baseUrl={server.url} onExit={() => {}} {...opts.app} />,
    size,
  );
  const done = handle;
  return {
    server,
    handle: done,
    h,
    async close() {
      h.unmount();
      await done.dispose();
      await server.close();
    },
  };
}
