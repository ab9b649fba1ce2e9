import { startServerProcess } from "./serverProcess.js";
import { drainThroughStore } from "./measures/clientIngest.js";

const N = Number(process.argv[2] ?? 100000);
const srv = await startServerProcess({ seed: 1, paceMs: 0, heartbeatMs: 15000, sessionCount: 4, historyLimit: N });
const ids = srv.sessionIds.slice(0, 4);
await srv.fill(ids, N);
for (let i = 0; i < 3; i++) console.log("B2", await drainThroughStore(srv.url, srv.ownerKey, ids, N, 60000));
await srv.close();
