/** B6's measured process: the ingest path (and the UI, when mounted) fed by the parent's floods. */
import { childArgs, tell, waitUntil } from "./childIpc.js";
import { openMeasured } from "./measuredApp.js";

const args = childArgs<{ url: string; key: string; ids: string[]; ui: boolean }>();
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("memoryChild needs --expose-gc");

const ingest = await openMeasured(args);
const subscribe = (l: () => void) => ingest.store.subscribe(l);

/** Full GCs, a moment for V8 to give freed pages back, another GC, then the figures. */
async function sample(): Promise<Record<string, number>> {
  gc?.();
  gc?.();
  await new Promise((r) => setTimeout(r, 1000));
  gc?.();
  const m = process.memoryUsage();
  const mb = (n: number) => n / 2 ** 20;
  return {
    rssMb: mb(m.rss),
    heapMb: mb(m.heapUsed),
    heapTotalMb: mb(m.heapTotal),
    externalMb: mb(m.external),
    arrayBuffersMb: mb(m.arrayBuffers),
  };
}

await waitUntil(
  () => args.ids.every((id) => ingest.store.getState().sessions[id]?.status.state === "live"),
  10_000,
  "every stream live",
  subscribe,
);
tell({ type: "ready", ...(await sample()) });

process.on("message", (m: { type: string; lastId?: number }) => {
  void (async () => {
    if (m.type === "reach") {
      const lastId = m.lastId as number;
      await waitUntil(
        () => ingest.reached(lastId),
        60_000,
        `event ${lastId} everywhere`,
        subscribe,
      );
      tell({
        type: "reached",
        lastId,
        events: ingest.total(),
        rssMb: process.memoryUsage().rss / 2 ** 20,
      });
    } else if (m.type === "sample") {
      tell({ type: "sample", ...(await sample()), events: ingest.total() });
    } else if (m.type === "end") {
      tell({ type: "end", peakMb: process.resourceUsage().maxRSS / 1024 });
      await ingest.close();
      process.exit(0);
    }
  })().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
});
