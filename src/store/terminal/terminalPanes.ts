/**
 * The session shells shown in panes: one TerminalConnection (client/terminalConnection.ts)
 * and one emulator screen (text/terminal/screen.ts) per session, driven from here, out of
 * React. The pane selects `version` (bumped at most once a frame when output was drawn) and
 * its status line; it draws the screen's cells and nothing else.
 *
 * The emulator is loaded on the first shell opened, not when the UI starts.
 */
import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiClient } from "../../client/apiClient.js";
import {
  TerminalConnection,
  type TerminalEnd,
  type TerminalStatus,
} from "../../client/terminalConnection.js";
import { formatSeconds } from "../../text/format.js";
import type { TerminalScreen } from "../../text/terminal/screen.js";

export interface TerminalPaneState {
  /** What the connection is doing, in words (empty once it is open). */
  status: string;
  /** Bumped when the screen changed. */
  version: number;
  /** Lines scrolled back from the live screen (0: live). */
  scrolledBack: number;
  /** How it ended, once it did. */
  ended: TerminalEnd | null;
}

export interface TerminalPanesState {
  terms: Readonly<Record<string, TerminalPaneState>>;
}

export interface TerminalPanes extends StoreApi<TerminalPanesState> {
  /** Opens the session's shell (a no-op when it is open); `onEnd` hears why it ended. */
  open(
    sessionId: string,
    cols: number,
    rows: number,
    onEnd: (sessionId: string, end: TerminalEnd) => void,
  ): void;
  /** The screen to draw, once loaded. */
  screenOf(sessionId: string): TerminalScreen | undefined;
  /** Keys typed into the pane (false: refused, the connection is not taking input). */
  input(sessionId: string, keys: string): boolean;
  resize(sessionId: string, cols: number, rows: number): void;
  /** Scroll the pane's view back (positive) or forward (negative), within the scrollback. */
  scroll(sessionId: string, lines: number): void;
  close(sessionId: string): void;
  closeAll(): void;
}

interface Live {
  conn: TerminalConnection;
  screen: TerminalScreen | null;
  size: { cols: number; rows: number };
  /** Output that came before the emulator was loaded. */
  early: (string | Uint8Array)[];
  timer: NodeJS.Timeout | null;
}

const FRAME_MS = 16;

function describe(s: TerminalStatus): string {
  if (s.kind === "open") return "";
  if (s.kind === "connecting") return s.attempt > 1 ? "connecting again…" : "connecting…";
  return `${s.reason}; reconnecting in ${formatSeconds(s.delayMs)} (attempt ${s.attempt + 1} of ${s.maxAttempts})`;
}

export function createTerminalPanes(api: ApiClient): TerminalPanes {
  const store = createStore<TerminalPanesState>()(() => ({ terms: {} }));
  const live = new Map<string, Live>();
  const set = (id: string, part: Partial<TerminalPaneState>) => {
    const cur = store.getState().terms[id];
    if (!cur) return;
    store.setState({ terms: { ...store.getState().terms, [id]: { ...cur, ...part } } });
  };
  const bump = (id: string) => {
    const l = live.get(id);
    if (!l || l.timer) return;
    l.timer = setTimeout(() => {
      l.timer = null;
      const cur = store.getState().terms[id];
      if (cur) set(id, { version: cur.version + 1 });
    }, FRAME_MS);
  };

  const panes: TerminalPanes = Object.assign(store, {
    open(
      sessionId: string,
      cols: number,
      rows: number,
      onEnd: (sessionId: string, end: TerminalEnd) => void,
    ) {
      if (live.has(sessionId)) return;
      store.setState({
        terms: {
          ...store.getState().terms,
          [sessionId]: { status: "connecting…", version: 0, scrolledBack: 0, ended: null },
        },
      });
      const l: Live = {
        conn: new TerminalConnection(api, sessionId, {
          cols,
          rows,
          onData: (chunk) => {
            if (l.screen) l.screen.write(chunk);
            else l.early.push(chunk);
          },
          onStatus: (s) => set(sessionId, { status: describe(s) }),
        }),
        screen: null,
        size: { cols, rows },
        early: [],
        timer: null,
      };
      live.set(sessionId, l);
      void import("../../text/terminal/screen.js").then(({ TerminalScreen }) => {
        if (live.get(sessionId) !== l) return;
        const screen = new TerminalScreen(l.size);
        screen.onUpdate(() => bump(sessionId));
        for (const c of l.early.splice(0)) screen.write(c);
        l.screen = screen;
        bump(sessionId);
      });
      void l.conn.run().then((end) => {
        if (l.timer) clearTimeout(l.timer);
        if (live.get(sessionId) === l) live.delete(sessionId);
        l.screen?.dispose();
        const { [sessionId]: _gone, ...rest } = store.getState().terms;
        store.setState({ terms: rest });
        onEnd(sessionId, end);
      });
    },
    screenOf: (sessionId: string) => live.get(sessionId)?.screen ?? undefined,
    input(sessionId: string, keys: string) {
      const l = live.get(sessionId);
      if (!l) return false;
      // Typing goes back to the live screen, as a terminal does.
      if (store.getState().terms[sessionId]?.scrolledBack) set(sessionId, { scrolledBack: 0 });
      return l.conn.send(keys);
    },
    resize(sessionId: string, cols: number, rows: number) {
      const l = live.get(sessionId);
      if (!l || (l.size.cols === cols && l.size.rows === rows)) return;
      l.size = { cols, rows };
      l.screen?.resize(cols, rows);
      l.conn.resize(cols, rows);
      bump(sessionId);
    },
    scroll(sessionId: string, lines: number) {
      const l = live.get(sessionId);
      const cur = store.getState().terms[sessionId];
      if (!l?.screen || !cur) return;
      const max = l.screen.scrollbackLines;
      set(sessionId, { scrolledBack: Math.max(0, Math.min(max, cur.scrolledBack + lines)) });
    },
    close(sessionId: string) {
      live.get(sessionId)?.conn.close();
    },
    closeAll() {
      for (const l of live.values()) l.conn.close();
    },
  });
  return panes;
}
