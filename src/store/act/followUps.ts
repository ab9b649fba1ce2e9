import { createStore, type StoreApi } from "zustand/vanilla";
import type { PromptOutcome } from "../../client/apiClient.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";
import { promptEndIsCancel } from "./promptView.js";

/**
 * Follow-ups queued while a prompt runs (the service keeps no queue: it answers
 * `already_running` to a second prompt). A reply given while one of ours runs, or refused as
 * already running, waits here; when the running prompt COMPLETES (its answer said done, or
 * the record's `last_prompt` says completed) the next one is sent. A prompt that fails, is
 * cut or cancelled holds the queue until the user sends something (or edits and sends one
 * now). The queues and what holds them are kept through a restart by `storage`.
 */

/** Prompts one session's queue holds; past it a reply is refused (said, never dropped). */
export const MAX_QUEUED = 50;

export interface FollowUpState {
  /** Each session's queued prompts, next first. */
  readonly queues: ReadonlyMap<string, readonly string[]>;
  /** Sessions whose queue waits for the user, with why (the prompt before did not complete). */
  readonly held: ReadonlyMap<string, string>;
}

/** What is kept on disk: per session, its queue and what holds it. */
export type StoredFollowUps = Record<string, { items: string[]; held: string | null }>;

export interface FollowUpStorage {
  load(): StoredFollowUps;
  /** Called with the whole of it after every change. */
  save(data: StoredFollowUps): void;
  /** Resolves once what was saved is written (before the process exits). */
  flushed?(): Promise<void>;
}

export interface FollowUpDeps {
  /** Sends a prompt and resolves with its end (the act store: the answer streams to the pane). */
  send(sessionId: string, prompt: string): Promise<PromptOutcome | null>;
  /** Cancels the running prompt ("send now"). */
  cancel(sessionId: string): Promise<void>;
  /**
   * Resolves when the prompt running elsewhere ends, as the record says: "completed", or why
   * it did not complete.
   */
  promptEnd(sessionId: string, signal: AbortSignal): Promise<"completed" | { why: string }>;
  storage?: FollowUpStorage;
}

export interface FollowUps extends StoreApi<FollowUpState> {
  /** The prompt box's send: sent now when nothing of ours runs or waits, else queued. */
  submit(sessionId: string, prompt: string): Promise<"sent" | "queued" | "full">;
  /** Cancels the running prompt and sends this one (the user confirmed). */
  sendNow(sessionId: string, prompt: string): Promise<void>;
  edit(sessionId: string, index: number, text: string): void;
  drop(sessionId: string, index: number): void;
  /** Whether a prompt sent from here runs in the session. */
  running(sessionId: string): boolean;
  /** Watches the sessions whose queue came back from storage (their prompt may be running). */
  start(): void;
  close(): void;
}

/** Why an outcome is not a completion, or null when it is (or when nothing is known yet). */
function notCompleted(o: PromptOutcome | null): string | null {
  if (o === null) return "the prompt was not sent";
  switch (o.kind) {
    case "done":
    case "already_running":
    case "accepted":
      return null;
    case "error":
      return promptEndIsCancel(o)
        ? "the prompt before was cancelled"
        : `the prompt before failed: ${cutText(sanitizeLine(o.message), 200)}`;
    case "cut":
      return `the prompt before was cut: ${cutText(sanitizeLine(o.reason), 200)}`;
    case "stopped":
      return "the prompt before was no longer read";
  }
}

export function createFollowUps(deps: FollowUpDeps): FollowUps {
  const stored = deps.storage?.load() ?? {};
  const store = createStore<FollowUpState>()(() => ({
    queues: new Map(
      Object.entries(stored)
        .filter(([, v]) => v.items.length > 0)
        .map(([id, v]) => [id, v.items]),
    ),
    held: new Map(
      Object.entries(stored).flatMap(([id, v]) =>
        v.items.length > 0 && v.held !== null ? [[id, v.held] as const] : [],
      ),
    ),
  }));
  const stop = new AbortController();
  const sending = new Map<string, number>();
  const watching = new Set<string>();
  let gen = 0;

  const persist = () => {
    const { queues, held } = store.getState();
    const out: StoredFollowUps = {};
    for (const [id, items] of queues) out[id] = { items: [...items], held: held.get(id) ?? null };
    deps.storage?.save(out);
  };
  const setQueue = (id: string, items: readonly string[]) => {
    const queues = new Map(store.getState().queues);
    if (items.length === 0) queues.delete(id);
    else queues.set(id, items);
    store.setState({ queues });
    persist();
  };
  const setHeld = (id: string, why: string | null) => {
    const held = new Map(store.getState().held);
    if (why === null) held.delete(id);
    else held.set(id, why);
    store.setState({ held });
    persist();
  };
  const queueOf = (id: string) => store.getState().queues.get(id) ?? [];

  /** The next queued prompt goes, unless the queue is held or empty. */
  const advance = (id: string) => {
    const [next, ...rest] = queueOf(id);
    if (next === undefined || store.getState().held.has(id) || stop.signal.aborted) return;
    setQueue(id, rest);
    void run(id, next);
  };
  const watch = (id: string) => {
    if (watching.has(id)) return;
    watching.add(id);
    void deps.promptEnd(id, stop.signal).then(
      (end) => {
        watching.delete(id);
        if (end === "completed") advance(id);
        else if (queueOf(id).length > 0) setHeld(id, end.why);
      },
      () => watching.delete(id),
    );
  };
  /** Sends; resolves true when the prompt waits in the queue instead (another one runs). */
  async function run(id: string, prompt: string): Promise<boolean> {
    const mine = ++gen;
    sending.set(id, mine);
    // The user (or the queue) sends: whatever held the queue is over.
    if (store.getState().held.has(id)) setHeld(id, null);
    const outcome = await deps.send(id, prompt);
    if (sending.get(id) !== mine) return false;
    sending.delete(id);
    if (outcome?.kind === "already_running") {
      // Another prompt runs (sent elsewhere): this one waits first in line for its end.
      setQueue(id, [prompt, ...queueOf(id)]);
      watch(id);
      return true;
    }
    if (outcome?.kind === "accepted") watch(id);
    else {
      const why = notCompleted(outcome);
      if (why === null) advance(id);
      else if (queueOf(id).length > 0) setHeld(id, why);
    }
    return false;
  }

  const actions: Omit<FollowUps, keyof StoreApi<FollowUpState>> = {
    async submit(id, prompt) {
      const waits = queueOf(id).length > 0 && !store.getState().held.has(id);
      if (sending.has(id) || watching.has(id) || waits) {
        if (queueOf(id).length >= MAX_QUEUED) return "full";
        setQueue(id, [...queueOf(id), prompt]);
        return "queued";
      }
      return (await run(id, prompt)) ? "queued" : "sent";
    },
    async sendNow(id, prompt) {
      // The running one's end must not hold or advance the queue: this send takes over.
      sending.delete(id);
      await deps.cancel(id);
      await run(id, prompt);
    },
    edit(id, index, text) {
      const items = queueOf(id);
      if (index < 0 || index >= items.length) return;
      setQueue(
        id,
        items.map((t, i) => (i === index ? text : t)),
      );
    },
    drop(id, index) {
      setQueue(
        id,
        queueOf(id).filter((_, i) => i !== index),
      );
      if (queueOf(id).length === 0 && store.getState().held.has(id)) setHeld(id, null);
    },
    running: (id) => sending.has(id),
    start() {
      for (const id of store.getState().queues.keys()) {
        if (!store.getState().held.has(id)) watch(id);
      }
    },
    close() {
      stop.abort();
    },
  };
  return Object.assign(store, actions);
}
