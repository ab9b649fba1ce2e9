import { Agent } from "undici";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore, type StreamsStore } from "../../src/store/streams/streamsStore.js";

/** The product's ingest path as the UI uses it: controller → subscription → sanitize → ring buffers. */
export interface Ingest {
  store: StreamsStore;
  controller: StreamsController;
  /** Events in the store (heartbeats excluded) over all sessions. */
  total(): number;
  /** True once every session's store slice has seen event id `lastId`. */
  reached(lastId: number): boolean;
  close(): Promise<void>;
}

export interface IngestOptions {
  url: string;
  key: string;
  ids: readonly string[];
  /** Resume point sent on the first request: "0" replays the service's whole history. */
  resumeFrom?: string;
}

export function createIngest(opts: IngestOptions): Ingest {
  const agent = new Agent({ connections: 256, keepAliveTimeout: 10_000 });
  const store = createStreamsStore();
  const controller = new StreamsController({
    config: { baseUrl: opts.url, apiKey: opts.key, dispatcher: agent },
    store,
  });
  if (opts.resumeFrom !== undefined) {
    // A slice that already knows a last event id resumes from it, like a reopened pane.
    for (const id of opts.ids) {
      store.getState().ensure(id);
      store.getState().pushMeta(id, { lastEventId: opts.resumeFrom });
    }
    store.getState().flushNow();
  }
  return {
    store,
    controller,
    total() {
      const s = store.getState().sessions;
      let n = 0;
      for (const id of opts.ids) n += s[id]?.totalEvents ?? 0;
      return n;
    },
    reached(lastId) {
      const s = store.getState().sessions;
      const want = String(lastId);
      return opts.ids.every((id) => s[id]?.lastEventId === want);
    },
    async close() {
      await controller.closeAll();
      store.getState().dispose();
      await agent.close();
    },
  };
}
