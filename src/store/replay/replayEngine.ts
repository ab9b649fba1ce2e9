import { createStore, type StoreApi } from "zustand/vanilla";
import type { Recording, ReplayEvent } from "../history/recording.js";
import type { SessionsStore } from "../sessionsStore.js";
import type { StreamsStore } from "../streams/streamsStore.js";
import { REPLAY_SPEEDS, type ReplaySpeed } from "./replaySpeed.js";

/**
 * Plays a recording into the streams store, in place of the network: the UI's panes, search,
 * filters and export work on it exactly as on live events. The replay's clock (`now`) is the
 * position in the recording, so ages and rates read as they did at that moment.
 */

export interface ReplayState {
  /** The moment of the recording shown (ms since epoch). */
  readonly position: number;
  readonly start: number;
  readonly end: number;
  readonly playing: boolean;
  readonly speed: ReplaySpeed;
  /** Events at or before the position, of all sessions. */
  readonly played: number;
  readonly total: number;
}

/** The replay's position and speed, and what plays it (a StreamControl for the panes). */
export interface ReplayStore extends StoreApi<ReplayState> {
  /** The replay's clock: the position. */
  readonly now: () => number;
  /** A pane opened on a session of the recording (StreamControl). */
  openStream(sessionId: string): void;
  closeStream(sessionId: string, opts?: { keep?: boolean }): void;
  play(): void;
  pause(): void;
  toggle(): void;
  setSpeed(speed: ReplaySpeed): void;
  faster(): void;
  slower(): void;
  /** Jump to a moment (clamped to the recording); panes show what had happened by then. */
  seek(at: number): void;
  /** Jump by ms (negative: back). */
  step(ms: number): void;
  /** A session's state at the position, from the recording's state changes (or undefined). */
  stateAt(sessionId: string): string | undefined;
  /** Stop the timer. */
  dispose(): void;
}

export interface ReplayOptions {
  sessions?: SessionsStore;
  /** Wall-clock ms between two steps while playing. Default 50. */
  tickMs?: number;
  /** Most events one step plays at speed "max". Default 20000. */
  maxPerTick?: number;
  speed?: ReplaySpeed;
  /** Where to start (default: the start). */
  at?: number;
  /** Start playing at once. Default true. */
  playing?: boolean;
}

/** How many events happened at or before `t`. */
function countUpTo(events: readonly ReplayEvent[], t: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[mid] as ReplayEvent).at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function createReplayStore(
  recording: Recording,
  streams: StreamsStore,
  opts: ReplayOptions = {},
): ReplayStore {
  const tickMs = opts.tickMs ?? 50;
  const maxPerTick = opts.maxPerTick ?? 20_000;
  const { start, end, events } = recording;
  const { bySession, changes } = indexRecording(events);
  const reported = new Map<string, string | undefined>();
  /** Open sessions: index of the next event to feed. */
  const next = new Map<string, number>();
  const clamp = (t: number) => Math.min(end, Math.max(start, t));
  const initial = clamp(opts.at ?? start);
  const state = createStore<ReplayState>()(() => ({
    position: initial,
    start,
    end,
    playing: false,
    speed: opts.speed ?? 1,
    played: countUpTo(events, initial),
    total: events.length,
  }));
  let timer: NodeJS.Timeout | null = null;

  const live = { state: "live", since: start } as const;

  function feed(sessionId: string): void {
    const list = bySession.get(sessionId) ?? [];
    const position = state.getState().position;
    const s = streams.getState();
    let i = next.get(sessionId) ?? 0;
    while (i < list.length && (list[i] as ReplayEvent).at <= position) {
      const e = list[i] as ReplayEvent;
      s.pushItem(sessionId, e.event, e.data, e.id ?? undefined, e.at);
      i++;
    }
    next.set(sessionId, i);
  }

  function moveTo(t: number): void {
    const position = clamp(t);
    const before = state.getState().position;
    if (position < before) {
      // Back in time: the panes start over and play up to the new position.
      const s = streams.getState();
      for (const id of next.keys()) {
        s.remove(id);
        s.ensure(id, live);
        next.set(id, 0);
      }
    }
    const ended = position >= end;
    state.setState({
      position,
      played: countUpTo(events, position),
      ...(ended ? { playing: false } : {}),
    });
    for (const id of next.keys()) feed(id);
    reportStates();
    if (ended) stopTimer();
  }

  const stateAt = (sessionId: string) =>
    stateAtIn(changes.get(sessionId), state.getState().position);

  /** Every session's state in the list follows the position, forwards and back. */
  function reportStates(): void {
    const sessions = opts.sessions;
    if (!sessions) return;
    for (const id of changes.keys()) {
      const st = stateAt(id);
      if (st === undefined || reported.get(id) === st) continue;
      reported.set(id, st);
      sessions.getState().patchSession(id, { state: st });
    }
  }

  function stopTimer(): void {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  function tick(): void {
    const s = state.getState();
    if (!s.playing) return;
    if (s.speed === "max") {
      const last = events[Math.min(events.length, s.played + maxPerTick) - 1];
      moveTo(last && last.at > s.position ? last.at : end);
    } else moveTo(s.position + tickMs * s.speed);
  }

  const actions: Omit<ReplayStore, keyof StoreApi<ReplayState>> = {
    now: () => state.getState().position,
    openStream(sessionId) {
      if (next.has(sessionId)) return;
      streams.getState().ensure(sessionId, live);
      next.set(sessionId, 0);
      feed(sessionId);
    },
    closeStream(sessionId, o = {}) {
      next.delete(sessionId);
      if (!o.keep) streams.getState().remove(sessionId);
    },
    play() {
      // Played to the end: play again from the start.
      if (state.getState().position >= end) moveTo(start - 1);
      state.setState({ playing: true });
      if (timer === null) {
        timer = setInterval(tick, tickMs);
        timer.unref();
      }
    },
    pause() {
      state.setState({ playing: false });
      stopTimer();
    },
    toggle() {
      if (state.getState().playing) actions.pause();
      else actions.play();
    },
    setSpeed(speed) {
      state.setState({ speed });
    },
    faster() {
      const i = REPLAY_SPEEDS.indexOf(state.getState().speed);
      actions.setSpeed(REPLAY_SPEEDS[Math.min(REPLAY_SPEEDS.length - 1, i + 1)] ?? "max");
    },
    slower() {
      const i = REPLAY_SPEEDS.indexOf(state.getState().speed);
      actions.setSpeed(REPLAY_SPEEDS[Math.max(0, i - 1)] ?? 1);
    },
    seek: moveTo,
    stateAt,
    step(ms) {
      moveTo(state.getState().position + ms);
    },
    dispose: stopTimer,
  };
  if (opts.playing ?? true) actions.play();
  return Object.assign(state, actions);
}

/** A state change in the recording. */
interface StateChange {
  at: number;
  state: string;
  previous: string | null;
}

/**
 * The recording's events by session, and each session's state changes (to tell its state
 * at any moment, for the session list).
 */
function indexRecording(events: readonly ReplayEvent[]): {
  bySession: Map<string, ReplayEvent[]>;
  changes: Map<string, StateChange[]>;
} {
  const bySession = new Map<string, ReplayEvent[]>();
  const changes = new Map<string, StateChange[]>();
  for (const e of events) {
    const list = bySession.get(e.sessionId) ?? [];
    list.push(e);
    bySession.set(e.sessionId, list);
    if (e.event !== "state_changed") continue;
    let d: { state?: unknown; previous_state?: unknown };
    try {
      d = JSON.parse(e.data) as typeof d;
    } catch {
      continue;
    }
    if (typeof d.state !== "string") continue;
    const cs = changes.get(e.sessionId) ?? [];
    cs.push({
      at: e.at,
      state: d.state,
      previous: typeof d.previous_state === "string" ? d.previous_state : null,
    });
    changes.set(e.sessionId, cs);
  }
  return { bySession, changes };
}

/** A session's state at `position` from its changes (before the first: the state it left). */
function stateAtIn(list: readonly StateChange[] | undefined, position: number): string | undefined {
  if (!list || list.length === 0) return undefined;
  let found: string | undefined = list[0]?.previous ?? undefined;
  for (const c of list) {
    if (c.at > position) break;
    found = c.state;
  }
  return found;
}
