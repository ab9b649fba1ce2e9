import { randomUUID } from "node:crypto";

/**
 * A new Idempotency-Key: one per user intent (a launch tried again keeps its own). Its own
 * module, beside the client rather than in it: the UI's launch form makes one without
 * loading the HTTP client (and undici) before its first frame.
 */
export function newIdempotencyKey(): string {
  return randomUUID();
}
