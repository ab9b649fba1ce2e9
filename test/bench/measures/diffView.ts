import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { stripAnsi } from "../../../src/text/sanitize.js";
import { percentile } from "../proc.js";
import { mountUi } from "../uiMount.js";

/**
 * B17: the changes view on a 10,000-line diff. A loopback service answers the session's
 * `git status` and `git diff` (the documented `POST …/git` shape, `result.diff`); the UI is
 * mounted as the CLI mounts it, `d` is pressed on the session's row, and the time is taken
 * from the moment the last of the two answers is sent to the first frame showing the diff.
 * Then PageDown is pressed 60 times a second for `scrollMs`: frames drawn a second, each
 * press to the frame showing its row, and the heap before and after (the view decodes only
 * the rows on screen, so scrolling must not grow it).
 */

export interface DiffViewResult {
  diffLines: number;
  firstFrameMs: number;
  /** Of which: the answer read and kept (JSON, the lenient reading, the store). */
  readMs: number;
  presses: number;
  shown: number;
  framesPerSecond: number;
  keyP50Ms: number;
  keyP99Ms: number;
  heapBeforeMiB: number;
  heapAfterMiB: number;
}

const KEY = "ask_live_BenchB17DiffViewKey0000000000000";
const ID = "ses_bench17";

/** A 10,000-line diff: 40 files, 10 hunks of 20 changed lines each, plus the headers. */
export function benchDiff(lines: number): string {
  const out: string[] = [];
  let f = 0;
  while (out.length < lines) {
    out.push(
      `diff --git a/src/mod${f}.ts b/src/mod${f}.ts`,
      `--- a/src/mod${f}.ts`,
      `+++ b/src/mod${f}.ts`,
    );
    for (let h = 0; h < 10 && out.length < lines; h++) {
      out.push(`@@ -${h * 40 + 1},10 +${h * 40 + 1},12 @@ function f${h}()`);
      for (let i = 0; i < 10; i++) out.push(`-  const old${i} = compute(${h}, ${i});`);
      for (let i = 0; i < 12; i++)
        out.push(`+  const value${i} = computeBetter(${h}, ${i}, "${f}");`);
    }
    f++;
  }
  return `${out.join("\n")}\n`;
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, {
    "content-type": "application/json",
    "x-ratelimit-limit": "100",
    "x-ratelimit-remaining": "99",
  });
  res.end(JSON.stringify(body));
}

async function startDiffService(diff: string, answered: (at: number) => void) {
  let sent = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "", "http://x").pathname;
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      if (path === "/api/cloud/auth/verify") {
        const scopes = ["sessions:read", "sessions:write", "sessions:prompt"];
        json(res, {
          valid: true,
          key_id: "k1",
          name: "bench",
          user_id: "u1",
          scopes,
          effective_scopes: scopes,
        });
      } else if (path === "/api/v1/me") json(res, { tenant_id: "u1", principal_id: "u1" });
      else if (path === "/api/sessions")
        json(res, { sessions: [{ id: ID, state: "active" }], has_more: false });
      else if (path === `/api/sessions/${ID}`) json(res, { id: ID, state: "active" });
      else if (path.startsWith(`/api/sessions/${ID}/git`)) {
        const op = (JSON.parse(body || "{}") as { operation?: string }).operation;
        if (op === "diff") json(res, { success: true, result: { diff } });
        else json(res, { success: true, result: { files: [] } });
        // The view can draw once both answers are in.
        if (++sent === 2) answered(performance.now());
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"detail":"not found"}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let lastFrame = () => "";

function waitFor(check: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) resolve();
      else if (performance.now() > deadline)
        reject(
          new Error(`no frame showed ${what} within ${ms} ms; last: ${lastFrame().slice(-400)}`),
        );
      else setTimeout(tick, 2);
    };
    tick();
  });
}

export async function measureDiffView(
  diffLines: number,
  scrollMs: number,
): Promise<DiffViewResult> {
  const diff = benchDiff(diffLines);
  let answeredAt: number | null = null;
  const svc = await startDiffService(diff, (at) => {
    answeredAt = at;
  });
  const ui = await mountUi({ url: svc.url, key: KEY, sessions: [], columns: 160, rows: 48 });
  try {
    let last = "";
    let lastAt = 0;
    let frames = 0;
    lastFrame = () => last;
    ui.terminal.onWrite = (data, at) => {
      const text = stripAnsi(data);
      // Cursor moves and the like come alone: a frame is a write with text.
      if (text.trim() === "") return;
      last = text;
      lastAt = at;
      frames++;
    };
    await waitFor(() => last.includes(ID), "the session's row", 10_000);
    let storedAt: number | null = null;
    const off = ui.services.review?.store.subscribe((st) => {
      if (storedAt === null && st.changes.value) storedAt = performance.now();
    });
    ui.keyboard.write("d");
    // The view's first frame on the answer: the summary (a row per file) and its status row.
    await waitFor(
      () => /src\/mod0\.ts {2}\+120 −100[\s\S]*row 1\/\d+/.test(last),
      "the diff",
      10_000,
    );
    const firstFrameMs = lastAt - (answeredAt ?? lastAt);
    const readMs = (storedAt ?? lastAt) - (answeredAt ?? lastAt);
    off?.();
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    // PageDown 60 times a second; each press's row is in the status line ("row N/…").
    const latencies: number[] = [];
    let presses = 0;
    const framesBefore = frames;
    const t0 = performance.now();
    while (performance.now() - t0 < scrollMs) {
      const before = /row (\d+)\//.exec(last)?.[1];
      const sentAt = performance.now();
      ui.keyboard.write("\u001B[6~");
      presses++;
      try {
        await waitFor(() => /row (\d+)\//.exec(last)?.[1] !== before, "the next page", 1000);
        latencies.push(lastAt - sentAt);
      } catch {
        // At the end of the diff nothing moves: start again from the top.
        ui.keyboard.write("g");
      }
      const next = sentAt + 1000 / 60;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const elapsed = performance.now() - t0;
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    return {
      diffLines,
      firstFrameMs,
      readMs,
      presses,
      shown: latencies.length,
      framesPerSecond: ((frames - framesBefore) / elapsed) * 1000,
      keyP50Ms: percentile(latencies, 50),
      keyP99Ms: percentile(latencies, 99),
      heapBeforeMiB: heapBefore / 1024 / 1024,
      heapAfterMiB: heapAfter / 1024 / 1024,
    };
  } finally {
    await ui.unmount();
    await svc.close();
  }
}
