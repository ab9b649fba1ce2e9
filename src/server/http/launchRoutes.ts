import {
  CreateRequestSchema,
  IDEMPOTENCY_HEADER,
  LaunchRequestSchema,
  MAX_PROMPT_CHARS,
  RenameRequestSchema,
} from "../../protocol/index.js";
import { systemClock } from "../clock.js";
import { DEFAULT_LAUNCHES_PER_HOUR, type Launcher, Launches } from "../launches.js";
import { HttpError } from "./httpError.js";
import { readJsonBody, sendJson } from "./respond.js";
import {
  authorize,
  type Call,
  type HandlerContext,
  invalidBody,
  type Route,
  SEGMENT,
  sessionParam,
} from "./routeKit.js";

/**
 * The routes that start and end work (launches.ts): launch, create, rename, destroy. Their
 * Launches live beside the context they serve, made on first use.
 */

/** A launch body holds a prompt of up to 100,000 characters (4 bytes each at most). */
const LAUNCH_BODY_BYTES = MAX_PROMPT_CHARS * 4 + 64 * 1024;

const launchesOf = new WeakMap<HandlerContext, Launches>();

function launches(ctx: HandlerContext): Launches {
  let l = launchesOf.get(ctx);
  if (!l) {
    l = new Launches(
      ctx.store,
      ctx.actions,
      ctx.manualClock ?? systemClock,
      ctx.launchesPerHour ?? DEFAULT_LAUNCHES_PER_HOUR,
    );
    launchesOf.set(ctx, l);
  }
  return l;
}

/** Stops what the context's launches still have scheduled (the service is closing). */
export function closeLaunches(ctx: HandlerContext): void {
  launchesOf.get(ctx)?.close();
}

function idempotencyKey(call: Call): string | null {
  const h = call.req.headers[IDEMPOTENCY_HEADER];
  const v = Array.isArray(h) ? h[0] : h;
  if (v === undefined || v.trim() === "") return null;
  if (v.length > 255) throw HttpError.invalid("Idempotency-Key", "Idempotency-Key is too long");
  return v.trim();
}

/** The first answer to this Idempotency-Key, sent again; true when there was one. */
function replayed(ctx: HandlerContext, call: Call, who: Launcher, key: string | null): boolean {
  const kept = launches(ctx).replay(who, key);
  if (!kept) return false;
  sendJson(call.res, kept.status, kept.body, { "idempotent-replayed": "true" });
  return true;
}

async function launch(ctx: HandlerContext, call: Call): Promise<void> {
  // Both documented scopes: the session is made (write) and prompted (prompt).
  authorize(ctx, call, "sendPrompt");
  const key = authorize(ctx, call, "launchSession");
  const idem = idempotencyKey(call);
  if (replayed(ctx, call, key, idem)) return;
  const parsed = LaunchRequestSchema.safeParse(await readJsonBody(call.req, LAUNCH_BODY_BYTES));
  if (!parsed.success) throw invalidBody(parsed.error, 422);
  sendJson(call.res, 201, launches(ctx).launch(key, parsed.data, idem));
}

async function create(ctx: HandlerContext, call: Call): Promise<void> {
  const key = authorize(ctx, call, "createSession");
  const idem = idempotencyKey(call);
  if (replayed(ctx, call, key, idem)) return;
  const parsed = CreateRequestSchema.safeParse(await readJsonBody(call.req));
  if (!parsed.success) throw invalidBody(parsed.error, 422);
  sendJson(call.res, 201, launches(ctx).create(key, parsed.data, idem));
}

async function rename(ctx: HandlerContext, call: Call): Promise<void> {
  authorize(ctx, call, "renameSession");
  const s = sessionParam(ctx, call);
  const parsed = RenameRequestSchema.safeParse(await readJsonBody(call.req));
  if (!parsed.success) throw invalidBody(parsed.error, 422);
  sendJson(call.res, 200, launches(ctx).rename(s, parsed.data.name));
}

function destroy(ctx: HandlerContext, call: Call): void {
  authorize(ctx, call, "destroySession");
  launches(ctx).destroy(sessionParam(ctx, call));
  sendJson(call.res, 204, null);
}

export const LAUNCH_ROUTES: Route[] = [
  { method: "POST", pattern: /^\/api\/v0\/sessions\/launch$/, handle: launch },
  { method: "POST", pattern: /^\/api\/sessions$/, handle: create },
  { method: "PATCH", pattern: new RegExp(`^/api/sessions/${SEGMENT}/name$`), handle: rename },
  { method: "DELETE", pattern: new RegExp(`^/api/sessions/${SEGMENT}$`), handle: destroy },
];
