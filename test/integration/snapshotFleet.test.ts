import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";

/** `snapshot --fleet`: the fleet view rendered headlessly, for docs and bug reports. */

const home = tempConfigHome();
const env = { XDG_CONFIG_HOME: home.dir, AGENT_SESSIONS_API_KEY: undefined };

afterAll(() => home.cleanup());

describe("agent-sessions snapshot --fleet", () => {
  it("prints the fleet table with every demo session and its live columns", async () => {
    const r = await runCli(
      ["snapshot", "--demo", "--fleet", "--width", "160", "--height", "30", "--after", "3000"],
      { env },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const frame = r.stdout;
    // The demo's simulator may have replaced a destroyed session by then: one more row.
    const head = /Fleet (\d+)\/\1 · streams \d+ live of \1 \(cap 50\) · budget \d+\/20/.exec(frame);
    expect(head, frame).not.toBeNull();
    const count = Number(head?.[1]);
    expect(count).toBeGreaterThanOrEqual(6);
    expect(frame).toMatch(
      /state\s+session\s+name\s+agent\s+repository\s+activity\s+prompts · \$\s+ev\/min 10m\s+files\s+current step/,
    );
    const rows = frame.split("\n").filter((l) => /ses_[0-9a-z]{8}/.test(l));
    expect(rows).toHaveLength(count);
    expect(frame.split("\n").every((l) => Array.from(l).length <= 160)).toBe(true);
  });
});
