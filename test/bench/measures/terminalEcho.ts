import { performance } from "node:perf_hooks";
import { ApiClient } from "../../../src/client/apiClient.js";
import { TerminalConnection, type TerminalEnd } from "../../../src/client/terminalConnection.js";
import { FramePainter } from "../../../src/text/terminal/ansiFrame.js";
import { TerminalScreen } from "../../../src/text/terminal/screen.js";
import type { RemoteServer } from "../serverProcess.js";

export interface TerminalEchoResult {
  presses: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** 10 MB of shell output, drawn. */
  outputBytes: number;
  outputSeconds: number;
  /** This process's CPU (the client: socket, emulator, painter) for the 10 MB. */
  outputCpuSeconds: number;
  rssGrowthMiB: number;
  droppedBytes: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * B19: the client's whole path of a key press in a session terminal, on loopback: the key is
 * sent as a text frame, the service's shell (a pty) echoes it, the echo comes back, goes
 * through the emulator, and the frame painter draws it. Then 10 MB of shell output, drawn
 * the same way, for its CPU and memory.
 */
export async function measureTerminalEcho(
  srv: RemoteServer,
  presses: number,
): Promise<TerminalEchoResult> {
  const api = new ApiClient({ baseUrl: srv.url, apiKey: srv.ownerKey });
  const screen = new TerminalScreen({ cols: 120, rows: 40 });
  const painter = new FramePainter();
  let painted = "";
  let waiting: { test: () => boolean; done: () => void } | null = null;
  screen.onUpdate(() => {
    painted = painter.paint(screen);
    if (waiting?.test()) {
      const w = waiting;
      waiting = null;
      w.done();
    }
  });
  const until = (test: () => boolean, ms: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
      waiting = {
        test,
        done: () => {
          clearTimeout(t);
          resolve();
        },
      };
    });
  let received = 0;
  let lastDataAt = 0;
  let conn: TerminalConnection | null = null;
  let ended: Promise<TerminalEnd> | null = null;
  for (const id of srv.sessionIds) {
    const c = new TerminalConnection(api, id, {
      cols: 120,
      rows: 40,
      onData: (chunk) => {
        received += typeof chunk === "string" ? chunk.length : chunk.byteLength;
        lastDataAt = performance.now();
        screen.write(chunk);
      },
      maxAttempts: 1,
    });
    const end = c.run();
    const opened = await Promise.race([
      until(() => /\$/.test(screen.text().join("\n")), 10_000, "a prompt").then(() => true),
      end.then(() => false),
    ]);
    if (opened) {
      conn = c;
      ended = end;
      break;
    }
  }
  if (!conn || !ended) throw new Error("no session's terminal could be opened");
  const line = () => {
    const c = screen.cursor;
    return screen.text()[c.y] ?? "";
  };
  const times: number[] = [];
  for (let i = 0; i < presses; i++) {
    if (i % 60 === 0) {
      // Ctrl-U clears the typed line now and then, so it never wraps.
      conn.send("\x15");
      await until(() => /\$\s*$/.test(line()), 5000, "the line cleared");
    }
    const before = line().length;
    const t0 = performance.now();
    const drawn = until(() => line().length > before && painted.includes("x"), 5000, "the echo");
    conn.send("x");
    await drawn;
    times.push(performance.now() - t0);
  }
  conn.send("\x15");
  // 10 MB of output, then a marker.
  const bytes = 10 * 1024 * 1024;
  const rss0 = process.memoryUsage().rss;
  let rssMax = rss0;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
  }, 50);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const from = received;
  conn.send(`head -c ${bytes} /dev/zero | tr '\\0' 'y' | fold -w 119; echo END-OF-"OUTPUT"\r`);
  // Done when the marker is drawn; or, when output came faster than the emulator took it
  // (dropped and counted), once all of it arrived and the shell went quiet.
  await new Promise<void>((resolve, reject) => {
    const started = performance.now();
    const check = setInterval(() => {
      const marker = screen.text().some((l) => l.includes("END-OF-OUTPUT"));
      const quiet = received - from >= bytes && performance.now() - lastDataAt > 500;
      if (marker || (quiet && screen.dropped.bytes > 0)) {
        clearInterval(check);
        resolve();
      } else if (performance.now() - started > 120_000) {
        clearInterval(check);
        reject(new Error(`timed out: ${received - from} bytes of ${bytes} came`));
      }
    }, 20);
  });
  const outputSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  conn.close();
  await ended;
  await api.close();
  const dropped = screen.dropped.bytes;
  screen.dispose();
  const sorted = [...times].sort((a, b) => a - b);
  return {
    presses,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? 0,
    outputBytes: bytes,
    outputSeconds,
    outputCpuSeconds: (cpu.user + cpu.system) / 1e6,
    rssGrowthMiB: (rssMax - rss0) / (1024 * 1024),
    droppedBytes: dropped,
  };
}
