/**
 * `POST …/sessions/{id}/ws-token {capability}` (websockets/token-exchange.mdx): a 5-minute
 * token for one session and capability. The scope depends on the capability (terminal:
 * `sessions:terminal`); 404 for an unknown session, 409 "Session is not active" for one that
 * is not running. The terminal itself is a WebSocket upgrade (src/server/terminal.ts).
 */
import type { WsCapability } from "../../protocol/terminal.js";
import { HttpError } from "./httpError.js";
import { readJsonBody, sendJson } from "./respond.js";
import {
  authorize,
  type Call,
  type HandlerContext,
  type Route,
  SEGMENT,
  sessionParam,
} from "./routeKit.js";

const CAPABILITY_OPERATION = {
  terminal: "wsToken",
} as const satisfies Partial<Record<WsCapability, string>>;

async function wsToken(ctx: HandlerContext, call: Call): Promise<void> {
  authorize(ctx, call, CAPABILITY_OPERATION.terminal);
  const body = await readJsonBody(call.req);
  const capability =
    body !== null && typeof body === "object"
      ? (body as { capability?: unknown }).capability
      : undefined;
  if (capability !== "terminal") {
    // Only the terminal is served here; the other documented capabilities are not.
    throw HttpError.invalid(
      "capability",
      typeof capability === "string" && ["prompt", "collaborate"].includes(capability)
        ? `capability ${capability} is not served by this reference service`
        : "capability must be one of terminal, prompt, collaborate",
    );
  }
  const s = sessionParam(ctx, call);
  if (!ctx.terminals) throw HttpError.detail(404, "Not Found");
  if (!ctx.terminals.canOpen(s.record.state)) {
    throw HttpError.detail(409, "Session is not active");
  }
  sendJson(call.res, 200, ctx.terminals.issueToken(s.record.id, capability));
}

export const TERMINAL_ROUTES: Route[] = [
  { method: "POST", pattern: new RegExp(`^/api/sessions/${SEGMENT}/ws-token$`), handle: wsToken },
];
