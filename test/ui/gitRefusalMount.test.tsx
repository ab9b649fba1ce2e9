import { afterEach, describe, it } from "vitest";
import { CONFIGURE_ACME, SESSION } from "../helpers/documentedService.js";
import { startDocumentedUi } from "../helpers/documentedUi.js";
import { pressKey, unmountReference, waitForContent } from "../helpers/ui.js";

/**
 * A push the code hosting app cannot make, in the UI, on either mount: the failure names the
 * installation's configure URL (the app read under the mount the sessions were found at, not
 * at the web dashboard's path). A scripted service following the real one's docs, through the
 * production wiring (buildServices).
 */

afterEach(unmountReference);

describe.each(["cloud", "interface"] as const)("on the %s mount", (mount) => {
  it("a refused push says where to grant the code hosting app access", async () => {
    // Wide enough for the whole failure on the status line.
    const ui = await startDocumentedUi(mount, { columns: 400, rows: 30 });
    const { h } = ui;
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
