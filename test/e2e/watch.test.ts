import { beforeAll, describe, expect, it } from "vitest";
import { type TmuxPane, terminalOnReference, tmuxVersion } from "../helpers/tmux.js";

/**
 * `watch` in a real terminal: prompt text joined into lines, each line tagged with its
 * session when several are watched, and colours on a terminal unless NO_COLOR is set.
 */

const TMUX = tmuxVersion();
if (!TMUX) console.warn("watch end-to-end suite skipped: tmux is not installed (CI installs it)");

const SGR_COLOUR = /\u001b\[[0-9;]*(3[0-7]|9[0-7])m/;

describe.skipIf(!TMUX)(`watch in tmux (${TMUX ?? "no tmux"})`, () => {
  // No simulator: the only events are the ones a test emits.
  const suite = terminalOnReference({ seed: 9, paceMs: 0, heartbeatMs: 60_000, sessionCount: 2 });
  const { terminal } = suite;
  let a: string;
  let b: string;
  let count = 0;

  beforeAll(() => {
    [a, b] = suite.server.sessionIds() as [string, string];
  });

  async function launch(args: string[], extra: Record<string, string> = {}): Promise<TmuxPane> {
    const script = `${terminal.command(suite.server.url, suite.server.key("member"), args, extra)}; exec sleep 600`;
    return terminal.open(`w${++count}`, script, { width: 120, height: 30 });
  }

  function emitTurn(tag: string): void {
    for (const f of [`${tag}: reading `, "the failing ", "test and ", "fixing it\n"]) {
      suite.server.emit(a, "prompt_progress", { type: "text", content: f });
    }
    suite.server.emit(b, "file_changed", { path: `src/${tag}.ts`, action: "modified" });
  }

  it("joins prompt fragments, tags each line with its session, and colours them", async () => {
    const pane = await launch(["watch", a, b]);
    await pane.waitForText([`${a}: live`, `${b}: live`]);
    emitTurn("one");
    const screen = await pane.waitForText([
      "src/one.ts",
      "one: reading the failing test and fixing it",
    ]);
    const lines = screen.split("\n");
    const prose = lines.filter((l) => l.includes("one: reading"));
    expect(prose).toHaveLength(1);
    expect(prose[0]).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${a} prompt one: reading the failing test and fixing it$`),
    );
    expect(
      lines.some((l) =>
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${b} file +modified src/one\\.ts$`).test(l),
      ),
    ).toBe(true);

    const coloured = await pane.capture({ ansi: true });
    const proseLine = coloured.split("\n").find((l) => l.includes("one: reading")) as string;
    expect(proseLine).toMatch(SGR_COLOUR);
    const fileLine = coloured.split("\n").find((l) => l.includes("src/one.ts")) as string;
    // Two sessions, two colours for their ids.
    const idColour = (line: string, id: string) =>
      new RegExp(`\\u001b\\[([0-9;]*)m${id}`).exec(line)?.[1];
    expect(idColour(proseLine, a)).toBeDefined();
    expect(idColour(fileLine, b)).toBeDefined();
    expect(idColour(proseLine, a)).not.toBe(idColour(fileLine, b));
  });

  it("NO_COLOR=1 on a terminal: the same lines, no colour", async () => {
    const pane = await launch(["watch", a, b], { NO_COLOR: "1" });
    await pane.waitForText([`${a}: live`, `${b}: live`]);
    emitTurn("two");
    await pane.waitForText(["src/two.ts", "two: reading the failing test and fixing it"]);
    const coloured = await pane.capture({ ansi: true });
    const mine = coloured.split("\n").filter((l) => l.includes("two"));
    expect(mine).toHaveLength(2);
    for (const l of mine) expect(l).not.toMatch(SGR_COLOUR);
  });

  it("one session: lines without a session id", async () => {
    const pane = await launch(["watch", b]);
    await pane.waitForText(`${b}: live`);
    suite.server.emit(b, "file_changed", { path: "src/three.ts", action: "created" });
    const screen = await pane.waitForText("src/three.ts");
    expect(screen).toMatch(/^\d\d:\d\d:\d\d file +created src\/three\.ts$/m);
  });
});
