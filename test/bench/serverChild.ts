/**
 * The reference service in a process of its own, driven over IPC by the benchmark, so that
 * formatting and writing the floods does not take CPU from the client being measured.
 */
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import type { ServerReply, ServerRequest } from "./serverProcess.js";

let server: ReferenceServer | null = null;

async function handle(req: ServerRequest): Promise<unknown> {
  switch (req.cmd) {
    case "start": {
      // A limit the service announces and no benchmark reaches: the client's request budget
      // learns it (a service that announced none would be paced at the documented 100 a
      // minute). A row may ask for another (a budget row: the documented limit).
      const args = req.args as ServerOptions;
      const opts: ServerOptions = {
        ...args,
        rateLimit: args.rateLimit ?? { limit: 1_000_000, windowMs: 60_000 },
      };
      server = await startServer(opts);
      return { url: server.url, ownerKey: server.key("owner"), sessionIds: server.sessionIds() };
    }
    case "flood": {
      const { ids, eventsPerSecond, durationMs } = req.args as {
        ids: string[];
        eventsPerSecond: number;
        durationMs: number;
      };
      return await need().flood(ids, eventsPerSecond, durationMs);
    }
    case "connections":
      return need().connections();
    case "requestCounts":
      return need().requestCounts();
    case "close":
      await server?.close();
      server = null;
      return null;
  }
}

function need(): ReferenceServer {
  if (!server) throw new Error("server not started");
  return server;
}

process.on("message", (msg: ServerRequest) => {
  handle(msg).then(
    (value) => reply({ id: msg.id, ok: true, value }),
    (e: unknown) => reply({ id: msg.id, ok: false, error: String(e) }),
  );
});
// The parent went away: leave with it instead of serving an orphaned port.
process.on("disconnect", () => {
  void server?.close().finally(() => process.exit(0));
  if (!server) process.exit(0);
});

function reply(r: ServerReply): void {
  process.send?.(r);
}
