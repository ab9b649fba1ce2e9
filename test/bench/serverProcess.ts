import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FloodResult, RequestCounts, ServerOptions } from "../../src/server/index.js";

export interface ServerRequest {
  id: number;
  cmd: "start" | "flood" | "connections" | "requestCounts" | "close";
  args?: unknown;
}

export type ServerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string };

/** The parent's handle on a reference service running in a child process. */
export interface RemoteServer {
  url: string;
  ownerKey: string;
  sessionIds: string[];
  pid: number;
  /** eventsPerSecond to EACH session for durationMs; resolves when the flood is done. */
  flood(ids: string[], eventsPerSecond: number, durationMs: number): Promise<FloodResult>;
  /**
   * Appends `perSession` events to each session as fast as the flood loop goes, with nobody
   * subscribed: a backlog a client can drain from the replay history at its own pace.
   */
  fill(ids: string[], perSession: number): Promise<FloodResult>;
  connections(): Promise<number>;
  /** Requests the service has had so far, and the 429s it answered. */
  requestCounts(): Promise<RequestCounts>;
  close(): Promise<void>;
}

export async function startServerProcess(opts: Omit<ServerOptions, "log">): Promise<RemoteServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL("./serverChild.js", import.meta.url)), {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    // A large replay history is a few hundred MB of strings.
    execArgv: ["--max-old-space-size=4096"],
  });
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on("message", (r: ServerReply) => {
    const w = waiting.get(r.id);
    if (!w) return;
    waiting.delete(r.id);
    if (r.ok) w.resolve(r.value);
    else w.reject(new Error(`server child: ${r.error}`));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", (code) => {
    for (const w of waiting.values()) w.reject(new Error(`server child exited (${code})`));
    waiting.clear();
  });
  const call = <T>(cmd: ServerRequest["cmd"], args?: unknown): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, cmd, args } satisfies ServerRequest);
    });

  const started = await call<{ url: string; ownerKey: string; sessionIds: string[] }>(
    "start",
    opts,
  );
  return {
    ...started,
    pid: child.pid ?? -1,
    flood: (ids, eventsPerSecond, durationMs) =>
      call<FloodResult>("flood", { ids, eventsPerSecond, durationMs }),
    fill: (ids, perSession) => {
      // Flood's count is floor(duration × rate): 200 ms at perSession × 5 per second is exact.
      return call<FloodResult>("flood", { ids, eventsPerSecond: perSession * 5, durationMs: 200 });
    },
    connections: () => call<number>("connections"),
    requestCounts: () => call<RequestCounts>("requestCounts"),
    async close() {
      if (child.exitCode !== null) return;
      try {
        await call("close");
      } finally {
        child.disconnect();
        await exited;
      }
    },
  };
}
