import {
  type CreateRequest,
  IDEMPOTENCY_WINDOW_MS,
  type LaunchRequest,
  type OnComplete,
} from "../protocol/launch.js";
import type { Clock } from "./clock.js";
import { HttpError } from "./http/httpError.js";
import type { SessionActions } from "./sessionActions.js";
import type { SessionTable, SimSession } from "./sessionTable.js";

/**
 * Starting work on the reference service: launch (a session and its first prompt), create,
 * rename and destroy, as the real service documents them (launch.mdx, create.mdx,
 * rename.mdx, delete.mdx, conventions.mdx).
 *
 * A new session provisions first: `creating` for PROVISION_MS on the simulator's clock (a
 * test with the manual clock decides when it is ready), then `running` (launch) or `active`
 * (create); a launch's prompt runs only then, and when it ends the documented `on_complete`
 * happens (pause, destroy, or nothing for keep_alive). An Idempotency-Key is honoured for 24
 * hours per API key: the same key is answered with the first answer, and no second session
 * is made.
 */

/** How long a new session takes to provision, on the simulator's clock. */
export const PROVISION_MS = 4_000;
/** Launches an organization may make in an hour unless the service is told otherwise. */
export const DEFAULT_LAUNCHES_PER_HOUR = 30;
const HOUR_MS = 60 * 60 * 1000;
/** Answers kept for Idempotency-Keys at most (the oldest go first). */
const MAX_KEPT_ANSWERS = 10_000;

/** Display names of the documented launch templates. */
const TEMPLATE_NAMES: Readonly<Record<string, string>> = {
  "web-app": "Web app",
  "backend-service": "Backend service",
  "static-site": "Static site",
};

interface KeptAnswer {
  status: number;
  body: unknown;
  at: number;
}

/** Who launches count against: the organization, else the user of a personal key. */
export interface Launcher {
  keyId: string;
  userId: string;
  organizationId: string | null;
}

export class Launches {
  readonly #answers = new Map<string, KeptAnswer>();
  /** Launch times per organization (or user), for the hourly limit. */
  readonly #launched = new Map<string, number[]>();
  /** Provisioning timers not yet due (cancelled when the service closes). */
  readonly #timers = new Set<unknown>();

  constructor(
    private readonly store: SessionTable,
    private readonly actions: SessionActions,
    private readonly clock: Clock,
    private readonly perHour: number = DEFAULT_LAUNCHES_PER_HOUR,
  ) {}

  /** The first answer given to this key's Idempotency-Key, while it is kept. */
  replay(who: Launcher, idempotencyKey: string | null): KeptAnswer | null {
    if (idempotencyKey === null) return null;
    const kept = this.#answers.get(`${who.keyId}\n${idempotencyKey}`);
    if (!kept) return null;
    if (this.clock.now() - kept.at > IDEMPOTENCY_WINDOW_MS) {
      this.#answers.delete(`${who.keyId}\n${idempotencyKey}`);
      return null;
    }
    return kept;
  }

  #keep(who: Launcher, idempotencyKey: string | null, status: number, body: unknown): void {
    if (idempotencyKey === null) return;
    if (this.#answers.size >= MAX_KEPT_ANSWERS) {
      const oldest = this.#answers.keys().next().value;
      if (oldest !== undefined) this.#answers.delete(oldest);
    }
    this.#answers.set(`${who.keyId}\n${idempotencyKey}`, { status, body, at: this.clock.now() });
  }

  /** Refuses a launch past the hourly limit: 429 with Retry-After, saying when to try again. */
  #checkLimit(who: Launcher): void {
    const bucket = who.organizationId ?? `user:${who.userId}`;
    const now = this.clock.now();
    const recent = (this.#launched.get(bucket) ?? []).filter((t) => now - t < HOUR_MS);
    this.#launched.set(bucket, recent);
    if (recent.length < this.perHour) {
      recent.push(now);
      return;
    }
    const waitS = Math.max(1, Math.ceil(((recent[0] ?? now) + HOUR_MS - now) / 1000));
    const whose = who.organizationId === null ? "your account" : "the organization";
    throw new HttpError(
      429,
      {
        detail: `Launch limit reached: ${whose} may launch ${this.perHour} sessions per hour; try again in ${Math.ceil(waitS / 60)} min`,
      },
      { "retry-after": String(waitS) },
    );
  }

  launch(who: Launcher, req: LaunchRequest, idempotencyKey: string | null) {
    this.#checkLimit(who);
    const s = this.#make({
      name: firstLine(req.prompt),
      agent: req.agent ?? "claude-code",
      template: req.template ?? null,
      repo: req.github_repo?.full_name ?? null,
    });
    const onComplete: OnComplete = req.on_complete ?? "pause";
    this.#provision(s, "running", () => {
      const id = s.record.id;
      this.store.startPrompt(id, this.clock.now());
      this.actions.run(s, req.prompt, null, (status) => {
        this.store.finishPrompt(id, status, this.clock.now());
        if (status !== "completed" || onComplete === "keep_alive") return;
        if (s.record.state !== "running" && s.record.state !== "active") return;
        this.store.setState(id, onComplete === "pause" ? "paused" : "destroyed", this.clock.now());
      });
    });
    const body = {
      id: s.record.id,
      state: "creating",
      message: "Agent launched. Poll GET /api/v0/sessions/{id} for status.",
    };
    this.#keep(who, idempotencyKey, 201, body);
    return body;
  }

  create(who: Launcher, req: CreateRequest, idempotencyKey: string | null) {
    const s = this.#make({
      name: req.name ?? null,
      agent: req.agent,
      template: req.template_id ?? null,
      repo: null,
    });
    if (req.visibility) s.record.visibility = req.visibility;
    this.#provision(s, "active", () => {});
    const body = { ...s.record };
    this.#keep(who, idempotencyKey, 201, body);
    return body;
  }

  rename(s: SimSession, name: string) {
    s.record.name = name;
    s.record.updated_at = new Date(this.clock.now()).toISOString();
    return { ...s.record };
  }

  /** Destroys a session: its running prompt stops, its state is `destroyed`; 404 when gone. */
  destroy(s: SimSession): void {
    if (s.record.state === "destroyed" || s.record.state === "destroying") {
      throw HttpError.detail(404, "Session not found or already destroyed");
    }
    this.actions.cancel(s.record.id);
    this.store.setState(s.record.id, "destroyed", this.clock.now());
  }

  /** Stops provisioning timers (the service is closing). */
  close(): void {
    for (const t of this.#timers) this.clock.cancel(t);
    this.#timers.clear();
  }

  #make(o: { name: string | null; agent: string; template: string | null; repo: string | null }) {
    const s = this.store.spawn(this.clock.now());
    const r = s.record;
    if (o.name !== null) r.name = o.name;
    r.agent = o.agent;
    r.template_id = o.template;
    r.template = o.template === null ? null : (TEMPLATE_NAMES[o.template] ?? o.template);
    r.github_repo = o.repo;
    r.repo = o.repo;
    r.preview_url = null;
    return s;
  }

  #provision(s: SimSession, ready: "running" | "active", then: () => void): void {
    const t = this.clock.schedule(() => {
      this.#timers.delete(t);
      if (s.record.state !== "creating") return;
      this.store.setState(s.record.id, ready, this.clock.now());
      then();
    }, PROVISION_MS);
    // On real time the timer must not keep a closing process alive.
    (t as { unref?: () => void }).unref?.();
    this.#timers.add(t);
  }
}

/** A launched session's name: its prompt's first line, shortened. */
function firstLine(prompt: string): string {
  const line = prompt.trim().split("\n")[0]?.trim() ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line || "New session";
}
