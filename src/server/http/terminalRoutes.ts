/**
 * `POST …/sessions/{id}/ws-token {capability}` (websockets/token-exchange.mdx): a 5-minute
 * token for one session and capability. The scope depends on the capability (terminal:
 * `sessions:terminal`); 404 for an unknown session, 409 "Session is not active" for one that
 * is not running. The terminal itself is a WebSocket upgrade (src/server/terminal.ts).
 *
 * The routes take requestHandler's own authorize and sessionParam as arguments, so this module
 * and the request handler do not import each other.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WsCapability } from "../../protocol/terminal.js";
import type { Terminals } from "../terminal.js";
import { HttpError } from "./httpError.js";
import { readJsonBody, sendJson } from "./respond.js";

const SEGMENT = "([^/]+)";

const CAPABILITY_OPERATION = {
  terminal: "wsToken",
} as const satisfies Partial<Record<WsCapability, string>>;

interface CallLike {
  req: IncomingMessage;
  res: ServerResponse;
}

interface RouteOf<Ctx, C> {
  method: string;
  pattern: RegExp;
  handle: (ctx: Ctx, call: C) => Promise<void> | void;
}

export function terminalRoutes<Ctx extends { terminals?: Terminals }, C extends CallLike>(deps: {
  authorize: (ctx: Ctx, call: C, op: "wsToken") => unknown;
  sessionParam: (ctx: Ctx, call: C) => { record: { id: string; state: string } };
}): RouteOf<Ctx, C>[] {
  const wsToken = async (ctx: Ctx, call: C): Promise<void> => {
    deps.authorize(ctx, call, CAPABILITY_OPERATION.terminal);
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
    const s = deps.sessionParam(ctx, call);
    if (!ctx.terminals) throw HttpError.detail(404, "Not Found");
    if (!ctx.terminals.canOpen(s.record.state)) {
      throw HttpError.detail(409, "Session is not active");
    }
    sendJson(call.res, 200, ctx.terminals.issueToken(s.record.id, capability));
  };
  return [
    { method: "POST", pattern: new RegExp(`^/api/sessions/${SEGMENT}/ws-token$`), handle: wsToken },
  ];
}
