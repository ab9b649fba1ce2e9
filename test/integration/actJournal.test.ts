import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFileJournal } from "../../src/cli/journal/fileJournal.js";
import { journalCleaner } from "../../src/cli/journal/journalSetup.js";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli } from "../helpers/cli.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * Remembered: the prompts sent and the decisions made from the UI go into the journal with
 * their time (never the key), and a replay of the journal shows them.
 */

afterEach(stopStarted);

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith(".ndjson")) out.push(join(e.parentPath, e.name));
  }
  return out;
}

describe("the journal of what was done", () => {
  it("keeps the prompt sent and the approval decided, with their time, and replay shows them", async () => {
    const server: ReferenceServer = await startServer({ seed: 5, paceMs: 0, promptStepMs: 20 });
    stopAfterTest(() => server.close());
    const root = mkdtempSync(join(tmpdir(), "as-act-journal-"));
    stopAfterTest(() => rmSync(root, { recursive: true, force: true }));
    const key = server.key("owner");
    const journal = createFileJournal({
      dir: join(root, "svc"),
      root,
      clean: journalCleaner,
      flushMs: 10,
    });
    const handle = buildServices({ baseUrl: server.url, apiKey: key }, { journal });
    const act = handle.services.act;
    if (!act) throw new Error("no act control");
    const id = server.sessions().find((s) => s.state === "active")?.id as string;
    const ap = server.addApproval(id, { kind: "deploy", message: "Ship?" });
    expect((await act.sendPrompt(id, "Add a health check"))?.kind).toBe("done");
    const decided = await act.decide(id, ap, "approve", "looks good");
    expect(decided?.kind).toBe("resolved");
    await handle.dispose();

    const written = files(root);
    expect(written.length).toBeGreaterThan(0);
    const text = written.map((f) => readFileSync(f, "utf8")).join("\n");
    expect(text).toContain("prompt_sent");
    expect(text).toContain("Add a health check");
    expect(text).toContain("approval_decision");
    expect(text).toContain("looks good");
    expect(text).not.toContain(key);
    const lines = text
      .split("\n")
      .filter((l) => l.includes("prompt_sent"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(JSON.stringify(lines[0])).toMatch(/"(received_at|at|ts)"/);

    const file = written.find((f) => readFileSync(f, "utf8").includes("prompt_sent")) as string;
    const r = await runCli(["snapshot", "--replay", file, "--width", "160", "--height", "40"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Add a health check");
    expect(r.stdout).toContain("looks good");
  });
});
