import { startServerProcess } from "./serverProcess.js";
import { captureStream, parseCeiling } from "./measures/parseCeiling.js";
import { drainThroughStore } from "./measures/clientIngest.js";
import { drainThroughEventSource } from "./measures/peerEventSource.js";

const N = Number(process.argv[2] ?? 100000);
const srv = await startServerProcess({ seed: 1, paceMs: 0, heartbeatMs: 15000, sessionCount: 4, historyLimit: N });
const ids = srv.sessionIds.slice(0, 4);
let t = Date.now();
await srv.fill(ids, N);
console.log("fill", Date.now() - t);
t = Date.now();
const caps = await Promise.all(ids.map((id) => captureStream(srv.url, srv.ownerKey, id, N)));
console.log("capture", Date.now() - t, caps.reduce((a, c) => a + c.reduce((x, b) => x + b.length, 0), 0) / 1e6, "MB", caps[0]!.length, "chunks");
console.log("B1", parseCeiling(caps, 2000));
for (let i = 0; i < 2; i++) {
  console.log("B2", await drainThroughStore(srv.url, srv.ownerKey, ids, N, 60000));
  console.log("B3", await drainThroughEventSource(srv.url, srv.ownerKey, ids, N, 60000));
}
await srv.close();
