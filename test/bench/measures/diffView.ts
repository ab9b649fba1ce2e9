import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { appEnv, forkChild } from "../childIpc.js";

/**
 * B17: the changes view on a 10,000-line diff. A loopback service (in this process) answers
 * the session's `git status` and `git diff` (the documented `POST …/git` shape,
 * `result.diff`); the UI runs in a measuring child of its own (diffViewChild.tsx, bundled as
 * the binary is, like B4–B16's), mounted as the CLI mounts it; `d` is pressed on the
 * session's row, and the time is taken from the moment the last of the two answers is sent
 * to the first frame showing the diff. Then PageDown is pressed 60 times a second for
 * `scrollMs`: frames drawn a second, each press to the frame showing its row, the CPU a
 * frame costs, and the heap before and after (the view decodes only the rows on screen, so
 * scrolling must not grow it).
 */

/** What the child measures: times as epoch milliseconds, the scroll figures as they are. */
export interface DiffViewChildResult
  extends Omit<DiffViewResult, "diffLines" | "firstFrameMs" | "readMs"> {
  /** When the first frame showing the diff was written, and when the answer was stored. */
  firstFrameAt: number;
  storedAt: number;
}

export interface DiffViewResult {
  diffLines: number;
  firstFrameMs: number;
  /** Of which: the answer read and kept (JSON, the lenient reading, the store). */
  readMs: number;
  /** The CPU from the answer stored to the first frame showing it (the view laid out, drawn). */
  firstFrameCpuMs: number | null;
  presses: number;
  shown: number;
  framesPerSecond: number;
  keyP50Ms: number;
  keyP99Ms: number;
  /**
   * The process's CPU time (user + system) per frame while scrolling: what a frame costs,
   * whatever else the machine runs (the wall-clock figures above wait for the scheduler too).
   */
  cpuPerFrameMs: number;
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
        // The view can draw once both answers are in (epoch ms: the child's clock is the same).
        if (++sent === 2) answered(performance.timeOrigin + performance.now());
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

/** B17's terminal. */
export const DIFF_VIEW_SIZE = { columns: 160, rows: 48 };

export async function measureDiffView(
  diffLines: number,
  scrollMs: number,
  /** Record the timed frames there, for B17-ink. */
  record?: string,
): Promise<DiffViewResult> {
  const diff = benchDiff(diffLines);
  let answeredAt: number | null = null;
  const svc = await startDiffService(diff, (at) => {
    answeredAt = at;
  });
  const child = forkChild(
    "./diffViewChild.js",
    { url: svc.url, key: KEY, id: ID, ...DIFF_VIEW_SIZE, scrollMs, ...(record ? { record } : {}) },
    ["--expose-gc"],
    appEnv(),
  );
  try {
    const { type: _type, ...r } = await child.next<DiffViewChildResult & { type: string }>(
      "result",
      60_000,
    );
    await child.exited;
    const { firstFrameAt, storedAt, ...scroll } = r;
    const answered = answeredAt ?? firstFrameAt;
    return {
      diffLines,
      firstFrameMs: firstFrameAt - answered,
      readMs: storedAt - answered,
      ...scroll,
    };
  } finally {
    child.kill();
    await svc.close();
  }
}
