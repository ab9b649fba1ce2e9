import type { ServicesHandle } from "../../src/cli/tui/buildServices.js";
import type { AppProps } from "../../src/ui/App.js";
import { type DocumentedServiceOptions, documentedService, KEY } from "./documentedService.js";
import type { ScriptedServer } from "./scriptedHttpServer.js";
import { closeAfterTest } from "./stopAfterTest.js";
import { mountOnService, type UiHarness } from "./ui.js";

/**
 * The App on the documented service (documentedService.ts) through the production wiring
 * (mountOnService): identity and the list read before the first frame, as the `ui` command
 * does. unmountReference (the file's afterEach) stops the UI, its services and the service.
 */
export interface DocumentedUi {
  server: ScriptedServer;
  handle: ServicesHandle;
  h: UiHarness;
}

export async function startDocumentedUi(
  mount: "cloud" | "interface",
  size: { columns: number; rows: number },
  opts: { service?: DocumentedServiceOptions; app?: Partial<AppProps> } = {},
): Promise<DocumentedUi> {
  const server = closeAfterTest(await documentedService(mount, opts.service));
  const { handle, h } = await mountOnService(server, KEY, size, {
    services: { tuning: { maxAttempts: 1, backoffBaseMs: 20 } },
    ...(opts.app ? { props: opts.app } : {}),
  });
  return { server, handle, h };
}
