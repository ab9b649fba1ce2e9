import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type TmuxPane, terminalOnReference, tmuxVersion } from "../helpers/tmux.js";

/**
 * History as a user meets it, with the built binary in tmux: a pane opens with the session's
 * recent events; quit and open again, and it shows what was seen before plus a gap marker;
 * --no-journal says so in the header; `replay` plays a journal file with no key.
 */

const TMUX = tmuxVersion();
const SIZE = { width: 150, height: 40 };

describe.skipIf(!TMUX)("history, journal and replay in tmux", () => {
  const suite = terminalOnReference({ seed: 9, paceMs: 0, heartbeatMs: 500 });
  const { terminal } = suite;
  let count = 0;

  async function launch(args: string[], key = true): Promise<TmuxPane> {
    const app = terminal.command(
      suite.server.url,
      key ? suite.server.key("owner") : undefined,
      args,
      {
        TZ: "UTC",
        XDG_STATE_HOME: terminal.home.dir,
        AGENT_SESSIONS_BELL: "0",
      },
    );
    return terminal.openApp(`h${++count}`, app, SIZE);
  }

  async function quit(pane: TmuxPane): Promise<void> {
    await pane.keys("q");
    await pane.waitForText("EXIT=0");
  }

  it("opens with history, then after a restart with the journal and a gap marker", async () => {
    const id = suite.server.sessionIds()[0] as string;
    for (let i = 1; i <= 3; i++)
      suite.server.emit(id, "process_output", { text: `E2E-BEFORE-${i}\n` });

    const first = await launch(["open", id]);
    await first.waitForText(["E2E-BEFORE-3", "live from here · above: 3 from the server"]);
    suite.server.emit(id, "process_output", { text: "E2E-LIVE-1\n" });
    await first.waitForText("E2E-LIVE-1");
    await quit(first);
    const dir = join(terminal.home.dir, "agent-sessions", "journal");
    const services = readdirSync(dir);
    expect(services).toHaveLength(1);
    expect(readdirSync(join(dir, services[0] as string))).toContain(`${id}.ndjson`);

    suite.server.emit(id, "process_output", { text: "E2E-WHILE-AWAY\n" });
    const second = await launch(["open", id]);
    const screen = await second.waitForText([
      "E2E-LIVE-1",
      "┄┄ not watched from",
      "E2E-WHILE-AWAY",
      // What the journal holds, whether it recorded it from the history or from the live
      // stream (E2E-LIVE-1, which the history sends back in the log's own form), is skipped.
      "4 repeats of the journal skipped",
    ]);
    const rows = screen.split("\n");
    const at = (t: string) => rows.findIndex((r) => r.includes(t));
    expect(at("E2E-BEFORE-1")).toBeLessThan(at("not watched from"));
    expect(at("E2E-LIVE-1")).toBeLessThan(at("not watched from"));
    expect(at("not watched from")).toBeLessThan(at("E2E-WHILE-AWAY"));
    expect(at("E2E-WHILE-AWAY")).toBeLessThan(at("live from here"));
    expect(screen.split("E2E-BEFORE-1")).toHaveLength(2);
    expect(screen.split("E2E-LIVE-1")).toHaveLength(2);
    await quit(second);

    const off = await launch(["open", "--no-journal", id]);
    await off.waitForText(["journal off", "E2E-WHILE-AWAY"]);
    expect(await off.capture()).not.toContain("not watched from");
    await quit(off);
  });

  it("replays a journal file with no key and no service", async () => {
    const id = suite.server.sessionIds()[0] as string;
    const dir = join(terminal.home.dir, "agent-sessions", "journal");
    const service = readdirSync(dir)[0] as string;
    const file = join(dir, service, `${id}.ndjson`);
    const pane = await launch(["replay", "--paused", "--at", "end", file], false);
    await pane.waitForText(["REPLAY ■ end of recording", "E2E-WHILE-AWAY", "profile: replay"]);
    await pane.keys(":");
    await pane.type("start");
    await pane.keys("Enter");
    await pane.waitFor(
      "the start",
      (s) => s.includes("REPLAY ⏸ paused") && !s.includes("E2E-WHILE-AWAY"),
    );
    await pane.keys("Space");
    await pane.waitForText("E2E-WHILE-AWAY", { timeoutMs: 15_000 });
    await quit(pane);
  });
});
