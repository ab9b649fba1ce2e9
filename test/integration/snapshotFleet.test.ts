import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";

/** `snapshot --fleet`: the fleet view rendered headlessly, for docs and bug reports. */

const home = tempConfigHome();
const env = { XDG_CONFIG_HOME: home.dir, AGENT_SESSIONS_API_KEY: undefined };

afterAll(() => home.cleanup());

describe("agent-sessions snapshot --fleet", () => {
  it("prints the fleet table with every demo session and its live columns", async () => {
    const r = await runCli(
      ["snapshot", "--demo", "--fleet", "--width", "160", "--height", "30", "--after", "300"],
      { env },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const frame = r.stdout;
    // The demo is seeded and its simulator stands still while the frame is taken: its six
    // sessions, each with its stream live, every time.
    expect(frame).toMatch(/Fleet 6\/6 · streams 6 live of 6 \(cap 50\) · budget \d+\/20/);
    expect(frame).toMatch(
      /state\s+session\s+name\s+agent\s+repository\s+activity\s+prompts · \$\s+ev\/min 10m\s+files\s+current step/,
    );
    const rows = frame.split("\n").filter((l) => /ses_[0-9a-z]{8}/.test(l));
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((l) => /ses_[0-9a-z]{8}/.exec(l)?.[0])).size).toBe(6);
    // Their simulated past: prompts run and money spent on every row.
    for (const row of rows) expect(row).toMatch(/\b\d+ · \$\d+\.\d\d\b/);
    expect(frame.split("\n").every((l) => Array.from(l).length <= 160)).toBe(true);
  });
});
