import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface TerminalBytesResult {
  seconds: number;
  /** Through the CLI's terminal writer (only changed cells). */
  bytesPerSecond: number;
  /** What Ink wrote for the same frames: every frame repainted whole. */
  fullFrameBytesPerSecond: number;
  ratio: number;
  framesPerSecond: number;
  eventsPerSecond: number;
  /** Ink's own incrementalRendering (only changed lines), in a second process at the same time. */
  inkLinesBytesPerSecond: number;
  inkLinesRatio: number;
}

interface ChildResult {
  seconds: number;
  bytesPerSecond: number;
  fullFrameBytesPerSecond: number | null;
  framesPerSecond: number | null;
  eventsPerSecond: number;
}

/**
 * B12: the UI with 4 live panes at `perSecond` events each, on a columns × rows virtual
 * terminal. Two processes watch the same sessions at once: the CLI's writer (whose own count
 * of Ink's writes is the full-frame figure of the same run) and Ink's line-level
 * incrementalRendering, for comparison.
 */
export async function measureTerminalBytes(
  srv: RemoteServer,
  ids: readonly string[],
  perSecond: number,
  warmupMs: number,
  windowMs: number,
  size: { columns: number; rows: number },
): Promise<TerminalBytesResult> {
  const spawn = (output: "cells" | "lines") =>
    forkChild(
      "./bytesChild.js",
      { url: srv.url, key: srv.ownerKey, ids, ...size, warmupMs, windowMs, output },
      [],
      appEnv(),
    );
  const cells = spawn("cells");
  const lines = spawn("lines");
  try {
    await Promise.all([cells.next("ready", 30_000), lines.next("ready", 30_000)]);
    const flood = srv.flood([...ids], perSecond, warmupMs + windowMs + 3000);
    const [c, l] = await Promise.all([
      cells.next<ChildResult>("result", warmupMs + windowMs + 30_000),
      lines.next<ChildResult>("result", warmupMs + windowMs + 30_000),
    ]);
    await flood;
    await Promise.all([cells.exited, lines.exited]);
    const full = c.fullFrameBytesPerSecond ?? Number.NaN;
    return {
      seconds: c.seconds,
      bytesPerSecond: c.bytesPerSecond,
      fullFrameBytesPerSecond: full,
      ratio: c.bytesPerSecond / full,
      framesPerSecond: c.framesPerSecond ?? 0,
      eventsPerSecond: c.eventsPerSecond,
      inkLinesBytesPerSecond: l.bytesPerSecond,
      inkLinesRatio: l.bytesPerSecond / full,
    };
  } finally {
    cells.kill();
    lines.kill();
  }
}
