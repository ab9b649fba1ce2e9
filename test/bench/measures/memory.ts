import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

/** process.memoryUsage() after a full GC, in MB. */
export interface MemorySample {
  rssMb: number;
  heapMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  events: number;
}

export interface MemoryResult {
  events: number;
  baseMb: number;
  at500kMb: number;
  at2MMb: number;
  peakMb: number;
  heapAt500kMb: number;
  heapAt2MMb: number;
  heapTotalAt500kMb: number;
  heapTotalAt2MMb: number;
  /** RSS after every step of the feed (no GC forced), in MB: a plateau or a slope. */
  rssSeriesMb: string;
}

/**
 * B6: 2,000,000 events across 4 streams into a child process (--expose-gc) holding the
 * ingest path (and the UI). The service floods in steps and waits for the child to catch up
 * after each, so it never has to cut a lagging stream. At a quarter and at the end the child
 * runs full GCs, gives V8 a second to return freed pages, and reports its memory; the peak is
 * the kernel's high-water mark (maxRSS) of the whole run.
 */
export async function measureMemory(
  srv: RemoteServer,
  ids: readonly string[],
  totalEvents: number,
  perSecondPerSession: number,
  ui: boolean,
): Promise<MemoryResult> {
  const child = forkChild(
    "./memoryChild.js",
    { url: srv.url, key: srv.ownerKey, ids, ui },
    ["--expose-gc"],
    appEnv(),
  );
  try {
    const ready = await child.next<MemorySample>("ready", 30_000);
    const perSession = totalEvents / ids.length;
    const step = Math.min(25_000, perSession / 4);
    const series: number[] = [];
    let lastId = 0;
    const feedTo = async (target: number) => {
      while (lastId < target) {
        const n = Math.min(step, target - lastId);
        const r = await srv.flood([...ids], perSecondPerSession, (n * 1000) / perSecondPerSession);
        lastId += r.perSession;
        child.send({ type: "reach", lastId });
        series.push((await child.next<{ rssMb: number }>("reached", 60_000)).rssMb);
      }
    };
    const sampleNow = async () => {
      child.send({ type: "sample" });
      return child.next<MemorySample>("sample", 10_000);
    };
    await feedTo(perSession / 4);
    const quarter = await sampleNow();
    await feedTo(perSession);
    const last = await sampleNow();
    child.send({ type: "end" });
    const end = await child.next<{ peakMb: number }>("end", 10_000);
    await child.exited;
    return {
      events: last.events,
      baseMb: ready.rssMb,
      at500kMb: quarter.rssMb,
      at2MMb: last.rssMb,
      peakMb: end.peakMb,
      heapAt500kMb: quarter.heapMb,
      heapAt2MMb: last.heapMb,
      heapTotalAt500kMb: quarter.heapTotalMb,
      heapTotalAt2MMb: last.heapTotalMb,
      rssSeriesMb: series.map((mb) => mb.toFixed(0)).join(" "),
    };
  } finally {
    child.kill();
  }
}
