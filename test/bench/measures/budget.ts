import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { CLI, REPO_ROOT } from "../proc.js";
import type { RemoteServer } from "../serverProcess.js";

/** A rate limit as the reference service applies it (see src/server/rateLimiter.ts). */
export interface Limit {
  limit: number;
  windowMs: number;
  burst: number;
}

/**
 * The earliest moment (ms after the first) the n-th request of a key may go under the limit:
 * a token bucket of `burst` refilled at limit per window, and at most `limit` requests in any
 * window. t(k) = 0 for k ≤ burst, else max((k − burst) · window / limit, t(k − limit) + window).
 * For 100 requests at 100 a minute with burst 20: 80 × 0.6 s = 48 s.
 */
export function limitAllowsMs(n: number, l: Limit): number {
  const t: number[] = [];
  for (let k = 1; k <= n; k++) {
    const bucket = k <= l.burst ? 0 : ((k - l.burst) * l.windowMs) / l.limit;
    const window = k > l.limit ? (t[k - l.limit - 1] as number) + l.windowMs : 0;
    t.push(Math.max(bucket, window));
  }
  return t[n - 1] ?? 0;
}

export interface BudgetResult {
  streams: number;
  live: number;
  /** Ms from spawning the CLI until the last stream said it was live. */
  lastLiveMs: number;
  /** Ms from spawning the CLI until its first request reached the service. */
  firstRequestMs: number;
  /** Requests the service let through (every one counts against the limit), and its 429s. */
  requests: number;
  rateLimited: number;
  /** Reconnects the CLI reported (a 429 or a failed opening shows up as one). */
  reconnects: number;
  allowedMs: number;
  ratio: number;
}

/**
 * B13: the built `watch --json` on `ids` against a service limited to `limit`. Each stream's
 * "live" status line (stderr) is timed from the spawn; the service counts the requests it had
 * and the 429s it sent. The time the limit allows is that of the requests the service let
 * through (stream openings and anything else the client asked for), from limitAllowsMs.
 */
export async function measureBudget(
  srv: RemoteServer,
  ids: readonly string[],
  limit: Limit,
): Promise<BudgetResult> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENT_SESSIONS_BASE_URL: srv.url,
    AGENT_SESSIONS_API_KEY: srv.ownerKey,
    XDG_CONFIG_HOME: join(REPO_ROOT, ".tmp", "bench-config"),
  };
  const before = await srv.requestCounts();
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [CLI, "watch", "--json", ...ids], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  // Events (heartbeats) are not what is measured here, but the pipe must be read.
  child.stdout.resume();
  const liveAt = new Map<string, number>();
  let reconnects = 0;
  let stopped = "";
  let done: () => void = () => {};
  const allLive = new Promise<void>((resolve) => {
    done = resolve;
  });
  createInterface({ input: child.stderr }).on("line", (line) => {
    let s: { session_id?: string; status?: string; reason?: string };
    try {
      s = JSON.parse(line) as typeof s;
    } catch {
      return;
    }
    if (s.status === "reconnecting") reconnects++;
    if (s.status === "stopped") stopped ||= `${s.session_id}: ${s.reason}`;
    if (s.status === "live" && s.session_id && !liveAt.has(s.session_id)) {
      liveAt.set(s.session_id, Date.now() - spawnedAt);
      if (liveAt.size === ids.length) done();
    }
  });
  // Twice what the limit allows for the openings alone, and start-up: a client that misses
  // the target by that much has failed it anyway.
  const timeoutMs = 2 * limitAllowsMs(ids.length, limit) + 30_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      allLive,
      exited.then((code) => {
        throw new Error(`watch exited (${code}) with ${liveAt.size} streams live ${stopped}`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`only ${liveAt.size} of ${ids.length} live in ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
    const counts = await srv.requestCounts();
    const requests = counts.requests - before.requests;
    const rateLimited = counts.rateLimited - before.rateLimited;
    const allowedMs = limitAllowsMs(requests - rateLimited, limit);
    const lastLiveMs = Math.max(...liveAt.values());
    return {
      streams: ids.length,
      live: liveAt.size,
      lastLiveMs,
      // The service is fresh (its first request is the CLI's) unless someone came before.
      firstRequestMs:
        before.requests === 0 && counts.firstAt !== null ? counts.firstAt - spawnedAt : Number.NaN,
      requests: requests - rateLimited,
      rateLimited,
      reconnects,
      allowedMs,
      // Within the burst the limit allows everything at once: no ratio to speak of.
      ratio: allowedMs > 0 ? lastLiveMs / allowedMs : Number.NaN,
    };
  } finally {
    clearTimeout(timer);
    child.kill("SIGINT");
    const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(kill);
  }
}
