import {
  type ApprovalBook,
  approvalResolved,
  autoPaused,
  awaitingApproval,
  maybeAskApproval,
  promptEnded,
} from "./attentionSim.js";
import { type Clock, systemClock } from "./clock.js";
import type { Faults } from "./faults.js";
import type { Random } from "./random.js";
import type { NewEvent, SessionState, SessionTable } from "./sessionTable.js";
import {
  type FileAction,
  nextEpisode,
  outputField,
  type PlannedEvent,
  withEscapes,
} from "./simulatedContent.js";

/** Lets a cloned session's simulated edits touch real files; null when nothing was written. */
export type TouchFile = (
  sessionId: string,
  wanted: FileAction,
) => { path: string; action: FileAction } | null;

interface SimState {
  queue: PlannedEvent[];
  /** When the next event is due (active sessions). */
  nextAt: number;
  /**
   * When a simulator-made state ends (a pause, an error, creating, destroying); null when the
   * simulator did not put the session in it.
   */
  resumeAt: number | null;
  /** While the agent waits on an approval: when the simulated reviewer resolves it. */
  approvalAt?: number;
}

const PAUSE_CHANCE = 0.08;
/** Now and then, between two episodes, a session fails (and is retried a while later)... */
const ERROR_CHANCE = 0.01;
/** ...or is destroyed, and a new session takes its place in the list. */
const DESTROY_CHANCE = 0.004;
/** States the simulator moves out of by itself when it put a session there: to what. */
const NEXT_STATE: Readonly<Record<string, SessionState>> = {
  paused: "active",
  error: "active",
  creating: "active",
  destroying: "destroyed",
};

/** What producing these events cost: a little per event and per character, as tokens do. */
function costOf(events: readonly NewEvent[]): number {
  let usd = 0;
  for (const e of events) usd += 0.0005 + e.data.length * 0.00001;
  return usd;
}

/**
 * Drives every simulated session from ONE timer: each session has its next due time
 * (exponentially distributed around paceMs), and the timer sleeps until the earliest.
 */
export class Simulator {
  private readonly states = new Map<string, SimState>();
  private timer: unknown = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private simulatedCount = 0;
  private stopped = false;

  constructor(
    private readonly store: SessionTable,
    private readonly faults: Faults,
    private readonly rand: Random,
    private readonly paceMs: number,
    private readonly touchFile: TouchFile,
    /** Draws for errors and destroys, apart from the content's (seeded runs keep their content). */
    private readonly fate: Random = rand,
    /** Real time by default; a manual clock lets a test decide when sessions change. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Where the simulated agent's approvals go (the service's one approvals book). */
  #book: ApprovalBook | null = null;

  approvalsFrom(book: ApprovalBook): void {
    this.#book = book;
  }

  /** Whether a user's prompt runs in a session (the service's prompts): none while it does. */
  #promptRunning: (sessionId: string) => boolean = () => false;

  promptsFrom(prompts: { isBusy(sessionId: string): boolean }): void {
    this.#promptRunning = (id) => prompts.isBusy(id);
  }

  /**
   * A user's prompt is about to run in the session: the simulated agent's episode under way
   * ends now, whole (its remaining events at once, then its end), so the two answers never
   * interleave; no new episode starts while the user's prompt runs (tick).
   */
  finishEpisode(sessionId: string): void {
    const st = this.states.get(sessionId);
    const s = this.store.get(sessionId);
    if (!st || !s || st.queue.length === 0) return;
    const now = this.clock.now();
    const events: NewEvent[] = [];
    for (const planned of st.queue.splice(0)) events.push(...this.realise(sessionId, planned, now));
    events.push(promptEnded(s.record, this.fate, now));
    this.store.append(sessionId, events, now);
    this.store.addCost(sessionId, costOf(events));
  }

  start(): void {
    if (this.paceMs <= 0) return;
    const now = this.clock.now();
    for (const s of this.store.order) {
      this.states.set(s.record.id, {
        queue: [],
        nextAt: now + this.gap(),
        resumeAt: s.record.state === "paused" ? now + this.pauseLength() : null,
      });
    }
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.cancel(this.timer);
    this.timer = null;
  }

  /** Re-plan after a state change made from outside (API or test). */
  poke(sessionId: string): void {
    const st = this.states.get(sessionId);
    if (!st) return;
    st.resumeAt = null;
    st.nextAt = this.clock.now() + this.gap();
    this.schedule();
  }

  private gap(): number {
    // Clamped so a pathological draw neither floods nor starves a session.
    return Math.min(
      this.paceMs * 4,
      Math.max(this.paceMs * 0.1, this.rand.exponential(this.paceMs)),
    );
  }

  private pauseLength(): number {
    return this.paceMs * (6 + this.rand.int(10));
  }

  private schedule(): void {
    if (this.stopped || this.paceMs <= 0) return;
    let due = Number.POSITIVE_INFINITY;
    for (const s of this.store.order) {
      const st = this.states.get(s.record.id);
      if (!st) continue;
      if (s.record.state === "active") due = Math.min(due, st.nextAt);
      else if (st.resumeAt !== null && NEXT_STATE[s.record.state]) {
        due = Math.min(due, st.resumeAt);
      }
    }
    if (due === Number.POSITIVE_INFINITY) return;
    if (this.timer && due >= this.timerAt) return;
    if (this.timer) this.clock.cancel(this.timer);
    this.timerAt = due;
    this.timer = this.clock.schedule(() => this.tick(), Math.max(0, due - this.clock.now()));
  }

  private tick(): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (const s of [...this.store.order]) {
      const id = s.record.id;
      const st = this.states.get(id);
      if (!st) continue;
      const next = NEXT_STATE[s.record.state];
      if (s.record.state !== "active" && next) {
        if (st.resumeAt !== null && st.resumeAt <= now) {
          // destroying goes on to destroyed, which nothing leaves.
          st.resumeAt = next === "active" ? null : now + this.pauseLength() / 2;
          st.nextAt = now + this.gap();
          this.store.setState(id, next, now);
        }
        continue;
      }
      // Only active sessions work; the other lifecycle states send heartbeats only.
      if (s.record.state !== "active" || st.nextAt > now) continue;
      st.nextAt = now + this.gap();
      // The user's prompt has the agent: its answer is not interleaved with made-up work.
      if (this.#promptRunning(id)) continue;
      // Waiting on an approval: no work until the reviewer resolves it (attentionSim.ts).
      if (awaitingApproval(s.record)) {
        // Approvals a person must decide (seeded, or added by a test) wait for them; the
        // ones the simulated agent asked for are approved by a simulated reviewer in time.
        if (st.approvalAt === undefined || st.approvalAt > now) continue;
        delete st.approvalAt;
        this.#book?.approveAllPending(id, "usr_reviewer", now);
        approvalResolved(s.record, now);
        st.queue = nextEpisode(this.rand);
        this.store.startPrompt(id, now);
      }
      if (st.queue.length === 0) {
        if (this.rand.next() < PAUSE_CHANCE) {
          // Idle: the service pauses it by itself, as the real one does.
          st.resumeAt = now + this.pauseLength();
          autoPaused(s.record, now);
          this.store.setState(id, "paused", now);
          continue;
        }
        const fate = this.fate.next();
        if (fate < ERROR_CHANCE) {
          st.resumeAt = now + 2 * this.pauseLength();
          this.store.setState(id, "error", now);
          continue;
        }
        if (fate < ERROR_CHANCE + DESTROY_CHANCE) {
          st.resumeAt = now + this.pauseLength() / 2;
          this.store.setState(id, "destroying", now);
          this.replace(now);
          continue;
        }
        if (this.#book && maybeAskApproval(s.record, this.fate, now, this.#book)) {
          st.approvalAt = now + this.pauseLength();
          continue;
        }
        st.queue = nextEpisode(this.rand);
        this.store.startPrompt(id, now);
      }
      const planned = st.queue.shift();
      if (planned) {
        const events = this.realise(id, planned, now);
        // The episode's last event: its prompt ends (done, or now and then an error).
        if (st.queue.length === 0) events.push(promptEnded(s.record, this.fate, now));
        this.store.append(id, events, now);
        this.store.addCost(id, costOf(events));
      }
    }
    this.schedule();
  }

  /** A session was destroyed: a new one starts (creating, then active). */
  private replace(now: number): void {
    const s = this.store.spawn(now);
    this.states.set(s.record.id, {
      queue: [],
      nextAt: now + this.gap(),
      resumeAt: now + this.pauseLength() / 2,
    });
  }

  /** Turn a planned event into what goes on the wire, applying the content faults. */
  private realise(sessionId: string, planned: PlannedEvent, now: number): NewEvent[] {
    const f = this.faults.get();
    const n = ++this.simulatedCount;
    if (f.oversizedEvery !== null && n % f.oversizedEvery === 0) {
      // Not kept for replay: a client that cuts it off and resumes must not receive it again.
      const filler = "x".repeat(Math.max(0, f.oversizedBytes - 40));
      return [
        { event: "process_output", data: `{"stream":"stdout","text":"${filler}"}`, keep: false },
      ];
    }
    if (f.malformedEvery !== null && n % f.malformedEvery === 0) {
      return [{ event: planned.event, data: `{"type":"text","content":"this JSON is cut off` }];
    }
    let payload: Record<string, unknown> = planned.payload;
    if (planned.event === "file_changed") {
      const real = this.touchFile(sessionId, planned.payload.action);
      if (real) payload = real;
    } else if (planned.event === "process_output" && f.escapes) {
      const field = outputField(planned.payload);
      payload = {
        ...planned.payload,
        [field]: withEscapes(planned.payload[field] ?? "", this.rand),
      };
    }
    return [{ event: planned.event, data: JSON.stringify({ ...payload, ts: now }) }];
  }
}
