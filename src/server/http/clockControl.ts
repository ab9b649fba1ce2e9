import type { IncomingMessage, ServerResponse } from "node:http";
import type { ManualClock } from "../clock.js";
import { HttpError } from "./httpError.js";
import { readJsonBody, sendJson } from "./respond.js";

/** Where a test steps a manual clock of a service it runs as a child process (`--clock manual`). */
export const CLOCK_CONTROL_PATH = "/_clock/advance";

function fromLoopback(req: IncomingMessage): boolean {
  const a = req.socket.remoteAddress ?? "";
  return a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.");
}

/**
 * `POST /_clock/advance {"ms": N}`: moves the manual clock N ms forward, running what the
 * simulator does in that time, and answers `{now}` (ISO). Only from a loopback address; not
 * a route of the service interface, so it needs no key and is not counted or rate limited.
 */
export async function advanceClock(
  clock: ManualClock,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    if (!fromLoopback(req)) throw HttpError.detail(403, "The clock is stepped from loopback only");
    if (req.method !== "POST") {
      throw new HttpError(405, { detail: `Method ${req.method} not allowed` }, { allow: "POST" });
    }
    const body = (await readJsonBody(req)) as { ms?: unknown } | undefined;
    const ms = body?.ms;
    if (!(typeof ms === "number" && Number.isInteger(ms) && ms >= 0 && ms <= 86_400_000)) {
      throw HttpError.invalid("ms", "ms must be an integer from 0 to 86400000", 422);
    }
    sendJson(res, 200, { now: new Date(clock.advance(ms)).toISOString() });
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    sendJson(res, e.status, e.body, e.headers);
  }
}
