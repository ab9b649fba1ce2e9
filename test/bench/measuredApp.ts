import type { StreamsStore } from "../../src/store/streams/streamsStore.js";
import { FrameAssembler } from "./frames.js";
import { createIngest } from "./ingest.js";

/** What B6 and B7 measure: 4 streams open in the store, with or without the UI on top. */
export interface MeasuredApp {
  store: StreamsStore;
  /** Events in the store (heartbeats excluded) over all sessions. */
  total(): number;
  /** True once every session's store slice has seen event id `lastId`. */
  reached(lastId: number): boolean;
  /** Frames the UI has written (0 without UI). */
  frames(): number;
  /** Times Ink laid out and rendered the tree, written or not (0 without UI). */
  renders(): number;
  close(): Promise<void>;
}

/**
 * With `ui`, the Ink app on a virtual 200×50 terminal opens the sessions in panes (React is
 * loaded only then, so the figures without UI do not carry it); without, the controller opens
 * them into the store.
 */
export async function openMeasured(opts: {
  url: string;
  key: string;
  ids: readonly string[];
  ui: boolean;
}): Promise<MeasuredApp> {
  if (!opts.ui) {
    const ingest = createIngest(opts);
    for (const id of opts.ids) ingest.controller.openStream(id);
    return { ...ingest, frames: () => 0, renders: () => 0 };
  }
  const { mountUi } = await import("./uiMount.js");
  let renders = 0;
  const ui = await mountUi({
    ...opts,
    sessions: opts.ids,
    columns: 200,
    rows: 50,
    onRender: () => {
      renders++;
    },
  });
  const store = ui.services.streams;
  let frames = 0;
  const assembler = new FrameAssembler(() => {
    frames++;
  });
  ui.terminal.onWrite = (data, at) => assembler.write(data, at);
  return {
    frames: () => frames,
    renders: () => renders,
    store,
    total() {
      const s = store.getState().sessions;
      return opts.ids.reduce((n, id) => n + (s[id]?.totalEvents ?? 0), 0);
    },
    reached(lastId) {
      const s = store.getState().sessions;
      return opts.ids.every((id) => s[id]?.lastEventId === String(lastId));
    },
    close: () => ui.unmount(),
  };
}
