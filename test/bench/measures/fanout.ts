import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { CLI, cpuSecondsOf, REPO_ROOT, rssOf } from "../proc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface FanoutResult {
  sessions: number;
  sent: number;
  received: number;
  lost: number;
  duplicated: number;
  /** CPU of the watch process over the flood, in % of one core. */
  cpuPct: number;
  rssMb: number;
  peakRssMb: number;
  /** Latest event of the flood to reach stdout after the flood ended. */
  drainMs: number;
}

interface Track {
  last: number;
  count: number;
}

/**
 * B9: the built `watch --json` on every session at once while the service floods each at
 * `perSecond` for `durationMs`. Every JSON line is read back and its id checked against the
 * per-session sequence the service assigned (1, 2, 3… on a fresh service).
 */
export async function measureFanout(
  srv: RemoteServer,
  ids: readonly string[],
  perSecond: number,
  durationMs: number,
): Promise<FanoutResult> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENT_SESSIONS_BASE_URL: srv.url,
    AGENT_SESSIONS_API_KEY: srv.ownerKey,
    XDG_CONFIG_HOME: join(REPO_ROOT, ".tmp", "bench-config"),
  };
  const child = spawn(process.execPath, [CLI, "watch", "--json", ...ids], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const tracks = new Map<string, Track>(ids.map((id) => [id, { last: 0, count: 0 }]));
  let duplicated = 0;
  let gaps = 0;
  let received = 0;
  let live = 0;
  let onLine: (() => void) | null = null;
  const stderr = createInterface({ input: child.stderr });
  stderr.on("line", (line) => {
    try {
      const s = JSON.parse(line) as { status?: string };
      if (s.status === "live") live++;
    } catch {
      // a warning line; not ours to judge here
    }
    onLine?.();
  });
  const stdout = createInterface({ input: child.stdout });
  stdout.on("line", (line) => {
    const ev = JSON.parse(line) as { session_id: string; event: string; id: string | null };
    if (ev.event === "heartbeat" || ev.id === null) return;
    const t = tracks.get(ev.session_id);
    if (!t) return;
    const id = Number(ev.id);
    received++;
    t.count++;
    if (id === t.last + 1) t.last = id;
    else if (id <= t.last) duplicated++;
    else {
      // A stream is in order, so a skipped id never comes later: it is lost.
      gaps += id - t.last - 1;
      t.last = id;
    }
    onLine?.();
  });
  const until = (cond: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (cond()) return resolve();
      const timer = setTimeout(() => {
        onLine = null;
        reject(new Error(`B9: timed out waiting for ${what}`));
      }, timeoutMs);
      onLine = () => {
        if (cond()) {
          clearTimeout(timer);
          onLine = null;
          resolve();
        }
      };
    });
  try {
    await until(() => live >= ids.length, 20_000, "every stream to be live");
    const cpu0 = cpuSecondsOf(child.pid ?? -1) ?? 0;
    const t0 = Date.now();
    let rssMax = 0;
    const sampler = setInterval(() => {
      const r = rssOf(child.pid ?? -1);
      if (r) rssMax = Math.max(rssMax, r.rssMb);
    }, 250);
    const flood = await srv.flood([...ids], perSecond, durationMs);
    const floodEnd = Date.now();
    await until(
      () => [...tracks.values()].every((t) => t.last >= flood.perSession),
      30_000,
      "every flooded event on stdout",
    ).catch(() => {});
    const drainMs = Date.now() - floodEnd;
    clearInterval(sampler);
    const cpu1 = cpuSecondsOf(child.pid ?? -1) ?? 0;
    const mem = rssOf(child.pid ?? -1);
    const ms = Date.now() - t0;
    let missingAtEnd = 0;
    for (const t of tracks.values()) missingAtEnd += Math.max(0, flood.perSession - t.last);
    return {
      sessions: ids.length,
      sent: flood.sent,
      received,
      lost: gaps + missingAtEnd,
      duplicated,
      cpuPct: ((cpu1 - cpu0) / (ms / 1000)) * 100,
      rssMb: Math.max(rssMax, mem?.rssMb ?? 0),
      peakRssMb: mem?.peakMb ?? rssMax,
      drainMs,
    };
  } finally {
    child.kill("SIGINT");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}
