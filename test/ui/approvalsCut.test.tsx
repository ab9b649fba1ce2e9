import { afterEach, describe, expect, it } from "vitest";
import { SESSION } from "../helpers/documentedService.js";
import { startDocumentedUi } from "../helpers/documentedUi.js";
import { pressKey, unmountReference, waitForContent } from "../helpers/ui.js";

/**
 * A session with more approvals pending than the book reads from one answer (500): the pane,
 * `A` and the approvals picker say that more are pending than they show, with the real
 * counts, rather than offering the 500 read as all there is. A scripted service following the
 * real one's docs (it lists 520 pending), through the production wiring (buildServices).
 */

afterEach(unmountReference);

const START = Date.parse("2026-04-15T10:00:00Z");

/** 520 pending approvals, newest first as the service lists them. */
function pending(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = n - 1; i >= 0; i--) {
    out.push({
      id: `ap_${String(i).padStart(4, "0")}`,
      session_id: SESSION,
      kind: "deploy",
      message: `Deploy build ${i}?`,
      status: "pending",
      created_at: new Date(START + i * 1000).toISOString(),
    });
  }
  return out;
}

describe("an approvals list cut at the book's bound", () => {
  it("the pane, A and the picker say that more are pending than shown", async () => {
    const ui = await startDocumentedUi(
      "cloud",
      { columns: 160, rows: 40 },
      { service: { approvals: pending(520) }, app: { initialSessions: [SESSION] } },
    );
    const { h, server } = ui;
    const note =
      "20 more pending than shown: the service lists 520 approvals, only the first 500 are read";
    const pane = await waitForContent(h, note);
    // The oldest read first, as the keys offer them; the rest counted, not called "all".
    expect(pane).toContain("ap_0020 — Y approve · X reject");
    expect(pane).toContain("and 497 more pending (Y lists those read)");
    expect(pane).not.toContain("lists them all");

    await pressKey(h, "A");
    await waitForContent(h, "Deploy build 20? (+519 more, 20 of them not read)");
    await pressKey(h, "escape");

    await pressKey(h, "Y");
    const dialog = await waitForContent(
      h,
      "500 approvals are pending: ↑/↓ picks the one to decide.",
    );
    // The picker says it above the choices (wrapped to the dialog's width).
    expect(dialog).toMatch(
      /20 more pending than shown: the service lists 520 approvals, only the\s*│\s*\n\s*│ first 500 are read/,
    );
    // Six choices at a time, each whole, inside the box; the others counted, ↓ reaches them.
    expect(dialog).toContain("▸ ap_0020: deploy: Deploy build 20?");
    expect(dialog).toContain("  ap_0025: deploy: Deploy build 25?");
    expect(dialog).not.toContain("ap_0026");
    expect(dialog).toContain("… 494 more below (↑/↓ picks)");
    for (let i = 0; i < 6; i++) await pressKey(h, "down");
    const moved = await waitForContent(h, "▸ ap_0026: deploy: Deploy build 26?");
    expect(moved).toContain("… 4 more above");
    expect(moved).not.toContain("ap_0023");
    await pressKey(h, "escape");
    // The approvals were read once, and nothing was decided.
    const reads = server.seen.filter((r) => r.url.includes("/approvals"));
    expect(reads.map((r) => r.method)).toEqual(["GET"]);
  });
});
