import { afterEach, expect, test } from "vitest";
import { App } from "../../src/ui/App.js";
import { renderUi, startUiFixture, waitForContent, pressKey, type UiFixture, type UiHarness } from "../helpers/ui.js";

let fx: UiFixture | null = null;
let h: UiHarness | null = null;
afterEach(async () => { h?.unmount(); await fx?.close(); });

test("smoke", async () => {
  fx = await startUiFixture();
  h = renderUi(<App services={fx.services} profile="work" baseUrl={fx.server.url} onExit={() => {}} />, { columns: 120, rows: 30 });
  await waitForContent(h, fx.ids[0]!);
  console.log(h.frame());
  await pressKey(h, "enter");
  await pressKey(h, "j");
  await pressKey(h, "enter");
  fx.server.emit(fx.ids[0]!, "prompt_progress", { type: "text", content: "Reading the failing test " });
  fx.server.emit(fx.ids[0]!, "prompt_progress", { type: "text", content: "and fixing it\n" });
  fx.server.emit(fx.ids[0]!, "process_output", { stream: "stdout", text: "\u001b[32m✓ 212 passed\u001b[0m\n" });
  fx.server.emit(fx.ids[0]!, "file_changed", { path: "src/a.ts", action: "created" });
  fx.server.setState(fx.ids[0]!, "paused");
  await waitForContent(h, "212 passed");
  await waitForContent(h, "live");
  console.log(h.frame());
  expect(1).toBe(1);
});
