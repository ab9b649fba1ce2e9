import { createStore, type StoreApi } from "zustand/vanilla";
import { stateNeedsAttention } from "../../protocol/states.js";
import { sanitize } from "../../text/sanitize.js";
import type { SessionsState, SessionsStore } from "../sessionsStore.js";
import type { SessionStream } from "../streams/sessionStream.js";
import type { StreamsState, StreamsStore } from "../streams/streamsStore.js";

/**
 * Every session that needs the user, not only the ones open in panes: a queue, newest first,
 * fed by the session list (each live refresh) and by the streams. A session needs attention
 * when it becomes paused, error or destroyed (seen in the list or on its stream), when its
 * stream stops on an error, and when its stream goes silent past the watchdog. The same
 * transition seen twice (on the stream, then in the list) is one item and one notification.
 *
 * An item goes when the cause does (the session moves on, the stream is live again). The
 * user having looked at it (jumped to it) marks it seen: it stays listed, the marks go.
 */

export type AttentionSource = "list" | "stream";

export interface AttentionItem {
  sessionId: string;
  /** The state (paused, error, destroyed), "stopped" (the stream, on an error) or "silent". */
  reason: string;
  /** One line, sanitized. */
  message: string;
  /** When it started needing attention (ms since epoch). */
  since: number;
  source: AttentionSource;
  /** The user has looked at it. */
  seen: boolean;
}

export interface AttentionState {
  /** Newest first, at most MAX_ITEMS. */
  readonly items: readonly AttentionItem[];
  /** Increments whenever transitions are raised (what notifications follow). */
  readonly raisedVersion: number;
  /** The transitions of the latest raise. */
  readonly lastRaised: readonly AttentionItem[];
  /** The user looked at the session: its items are seen (marks go, the queue keeps them). */
  acknowledge(sessionId: string): void;
}

export interface AttentionStore extends StoreApi<AttentionState> {
  /** Stop following the sessions and streams stores. */
  dispose(): void;
}

export const MAX_ITEMS = 500;

/** States a reason keeps an item for: a state item goes when the session leaves the state. */
const STREAM_REASONS = new Set(["stopped", "silent"]);

export interface AttentionStoreOptions {
  sessions?: Pick<SessionsStore, "getState" | "subscribe">;
  streams?: Pick<StreamsStore, "getState" | "subscribe">;
  now?: () => number;
}

function oneLine(s: string): string {
  return sanitize(s).replace(/\s+/g, " ").trim();
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** When a record says it last changed, if it says (ms since epoch). */
function recordTime(rec: Record<string, unknown>): number | null {
  const t = Date.parse(str(rec.updated_at) ?? "");
  return Number.isFinite(t) ? t : null;
}

/** Ids of sessions with an unseen item, for marks (memoised on the items array). */
const marked = new WeakMap<readonly AttentionItem[], ReadonlySet<string>>();
export function selectMarkedIds(s: Pick<AttentionState, "items">): ReadonlySet<string> {
  let set = marked.get(s.items);
  if (!set) {
    set = new Set(s.items.filter((i) => !i.seen).map((i) => i.sessionId));
    marked.set(s.items, set);
  }
  return set;
}

/** The unseen item of a session, if any (the newest). */
export function unseenItemOf(
  s: Pick<AttentionState, "items">,
  sessionId: string,
): AttentionItem | null {
  return s.items.find((i) => i.sessionId === sessionId && !i.seen) ?? null;
}

/**
 * The next unseen item after the session `afterId` in queue order (newest first), wrapping;
 * the newest when afterId has none.
 */
export function nextUnseen(
  s: Pick<AttentionState, "items">,
  afterId: string | null,
): AttentionItem | null {
  const unseen = s.items.filter((i) => !i.seen);
  if (unseen.length === 0) return null;
  const at = afterId === null ? -1 : unseen.findIndex((i) => i.sessionId === afterId);
  return unseen[(at + 1) % unseen.length] ?? null;
}

export function createAttentionStore(opts: AttentionStoreOptions = {}): AttentionStore {
  const now = opts.now ?? Date.now;
  /** The last state each session was seen in (either source): transitions are against it. */
  const known = new Map<string, string | null>();
  /** Per stream: what was last seen of it, to notice what changed. */
  const streamSeen = new Map<
    string,
    { attention: SessionStream["attention"]; silent: boolean; live: boolean }
  >();
  let listLoaded = false;

  const store = createStore<AttentionState>()((set, get) => ({
    items: [],
    raisedVersion: 0,
    lastRaised: [],
    acknowledge(sessionId) {
      const items = get().items;
      if (!items.some((i) => i.sessionId === sessionId && !i.seen)) return;
      set({ items: items.map((i) => (i.sessionId === sessionId ? { ...i, seen: true } : i)) });
    },
  }));

  /** Changes of one batch, applied together: one store update, one raise. */
  interface Batch {
    add: AttentionItem[];
    /** Remove items of (session, predicate). */
    drop: { sessionId: string; keep: (i: AttentionItem) => boolean }[];
    raise: boolean[];
  }

  function apply(b: Batch): void {
    if (b.add.length === 0 && b.drop.length === 0) return;
    let items = store.getState().items.slice();
    for (const d of b.drop) {
      items = items.filter((i) => i.sessionId !== d.sessionId || d.keep(i));
    }
    const raised: AttentionItem[] = [];
    b.add.forEach((item, n) => {
      // One item per session and reason: a newer transition replaces an older one.
      items = items.filter((i) => i.sessionId !== item.sessionId || i.reason !== item.reason);
      items.push(item);
      if (b.raise[n]) raised.push(item);
    });
    items.sort((x, y) => y.since - x.since);
    if (items.length > MAX_ITEMS) items = items.slice(0, MAX_ITEMS);
    const s = store.getState();
    store.setState({
      items,
      ...(raised.length > 0 ? { raisedVersion: s.raisedVersion + 1, lastRaised: raised } : {}),
    });
  }

  /** A state a session is in now, from either source. */
  function observeState(
    b: Batch,
    sessionId: string,
    state: string | null,
    source: AttentionSource,
    at: number,
    quiet: boolean,
  ): void {
    const had = known.has(sessionId);
    const was = known.get(sessionId) ?? null;
    known.set(sessionId, state);
    if (had && was === state) return;
    if (stateNeedsAttention(state)) {
      b.add.push({
        sessionId,
        reason: state as string,
        message: `session ${oneLine(state as string)}`,
        since: at,
        source,
        seen: false,
      });
      b.raise.push(!quiet);
    } else if (had) {
      // It moved on by itself: its state items go (stream faults stay until the stream heals).
      b.drop.push({ sessionId, keep: (i) => STREAM_REASONS.has(i.reason) });
    }
  }

  function onSessions(s: SessionsState, prev: SessionsState | null): void {
    if (prev !== null && s.items === prev.items && s.records === prev.records) return;
    if (s.loadedAt === null) return;
    // The first list shows what already waits: queued, without a notification.
    const quiet = !listLoaded;
    listLoaded = true;
    const b: Batch = { add: [], drop: [], raise: [] };
    const t = now();
    const before = prev?.items;
    for (let i = 0; i < s.items.length; i++) {
      const rec = s.items[i];
      if (rec === undefined) continue;
      // An unchanged record keeps its identity: nothing to look at.
      if (before !== undefined && before[i] === rec) continue;
      const r = rec as Record<string, unknown>;
      const state = str(r.state);
      if (known.get(rec.session_id) === state && known.has(rec.session_id)) continue;
      const since = quiet ? (recordTime(r) ?? t) : t;
      // A streamed session's record is patched from its stream as events arrive.
      const source = opts.streams?.getState().sessions[rec.session_id] ? "stream" : "list";
      observeState(b, rec.session_id, state, source, since, quiet);
    }
    // Records read one by one: a pane's, and sessions that left a list which hides destroyed
    // and error ones (their new state is why they left).
    if (prev === null || s.records !== prev.records) {
      for (const [id, rec] of Object.entries(s.records)) {
        if (prev !== null && prev.records[id] === rec) continue;
        const state = str((rec as Record<string, unknown>).state);
        if (known.get(id) === state && known.has(id)) continue;
        const source = opts.streams?.getState().sessions[id] ? "stream" : "list";
        observeState(b, id, state, source, quiet ? (recordTime(rec) ?? t) : t, quiet);
      }
    }
    apply(b);
  }

  function onStreams(s: StreamsState, prev: StreamsState | null): void {
    if (prev !== null && s.sessions === prev.sessions) return;
    const b: Batch = { add: [], drop: [], raise: [] };
    for (const id of s.order) {
      const x = s.sessions[id];
      if (!x || (prev !== null && prev.sessions[id] === x)) continue;
      const seen = streamSeen.get(id) ?? { attention: null, silent: false, live: false };
      const silent = x.status.state === "reconnecting" && x.status.silent === true;
      const live = x.status.state === "live";
      if (x.sessionState !== null && x.sessionState !== (known.get(id) ?? null)) {
        observeState(b, id, x.sessionState, "stream", x.attention?.at ?? now(), false);
      }
      if (x.attention !== seen.attention && x.attention?.reason === "stopped") {
        b.add.push({
          sessionId: id,
          reason: "stopped",
          message: `stream stopped: ${oneLine(x.attention.message)}`,
          since: x.attention.at,
          source: "stream",
          seen: false,
        });
        b.raise.push(true);
      }
      if (silent && !seen.silent) {
        b.add.push({
          sessionId: id,
          reason: "silent",
          message: "stream went silent past its watchdog; reconnecting",
          since: now(),
          source: "stream",
          seen: false,
        });
        b.raise.push(true);
      }
      if (live && !seen.live) {
        // Streaming again: what was wrong with the stream is over.
        b.drop.push({ sessionId: id, keep: (i) => !STREAM_REASONS.has(i.reason) });
      }
      streamSeen.set(id, { attention: x.attention, silent, live });
    }
    for (const id of streamSeen.keys()) if (!s.sessions[id]) streamSeen.delete(id);
    apply(b);
  }

  const offs: (() => void)[] = [];
  if (opts.sessions) {
    onSessions(opts.sessions.getState(), null);
    offs.push(opts.sessions.subscribe((s, prev) => onSessions(s, prev)));
  }
  if (opts.streams) {
    onStreams(opts.streams.getState(), null);
    offs.push(opts.streams.subscribe((s, prev) => onStreams(s, prev)));
  }
  return Object.assign(store, {
    dispose() {
      for (const off of offs.splice(0)) off();
    },
  });
}
