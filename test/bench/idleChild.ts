/** B7's measured process: 4 open streams receiving heartbeats only. */
import { childArgs, tell, waitUntil } from "./childIpc.js";
import { openMeasured } from "./measuredApp.js";

const args = childArgs<{
  url: string;
  key: string;
  ids: string[];
  windowMs: number;
  ui: boolean;
}>();
const ingest = await openMeasured(args);
const subscribe = (l: () => void) => ingest.store.subscribe(l);
const heartbeats = () =>
  args.ids.reduce((n, id) => n + (ingest.store.getState().sessions[id]?.counts.heartbeat ?? 0), 0);

// Warm: every stream live and past its first heartbeat, so start-up work is not counted.
await waitUntil(
  () =>
    args.ids.every((id) => {
      const s = ingest.store.getState().sessions[id];
      return s?.status.state === "live" && s.lastHeartbeatAt !== null;
    }),
  20_000,
  "a heartbeat on every stream",
  subscribe,
);
const beatsBefore = heartbeats();
const framesBefore = ingest.frames();
const rendersBefore = ingest.renders();
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
await new Promise((r) => setTimeout(r, args.windowMs));
const cpu = process.cpuUsage(cpu0);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
tell({
  type: "idle",
  cpuPct: ((cpu.user + cpu.system) / 1000 / ms) * 100,
  ms,
  heartbeats: heartbeats() - beatsBefore,
  frames: ingest.frames() - framesBefore,
  renders: ingest.renders() - rendersBefore,
  live: args.ids.every((id) => ingest.store.getState().sessions[id]?.status.state === "live"),
});
await ingest.close();
process.exit(0);
