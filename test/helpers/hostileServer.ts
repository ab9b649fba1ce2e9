import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { closeAfterTest } from "./stopAfterTest.js";

/**
 * A loopback service that answers like a spec-legal server on every path it is not told
 * otherwise about, and like a hostile one wherever a test says so. Each route handler gets
 * the request, the response and how many times that route was asked before.
 */

export const HOSTILE_KEY = "ask_live_Zq8vN2pLx4Rt7Wm9Yc3Bf6Hd1Kj5Gs0E";

export type Route = (req: IncomingMessage, res: ServerResponse, n: number) => void;

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Header names and values as received (Latin-1 decoded bytes). */
  rawHeaders: string[];
  /** When the request arrived (performance.now()). */
  at: number;
}

export interface HostileServer {
  url: string;
  seen: SeenRequest[];
  /** Requests whose path starts with this. */
  requestsTo(prefix: string): SeenRequest[];
  close(): Promise<void>;
}

export interface HostileRoutes {
  verify?: Route;
  me?: Route;
  sessions?: Route;
  /** /api/cloud/sessions/{id}/events and /api/sessions/{id}/events */
  events?: Route;
  git?: Route;
  /** Anything else. */
  other?: Route;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

export function sseHead(res: ServerResponse, contentType = "text/event-stream"): void {
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
  res.flushHeaders();
}

export function sseItem(id: string | number | null, event: string, data: unknown): string {
  const idLine = id === null ? "" : `id: ${id}\n`;
  const text = typeof data === "string" ? data : JSON.stringify(data);
  return `${idLine}event: ${event}\ndata: ${text}\n\n`;
}

export const VALID_KEY_INFO = {
  valid: true,
  key_id: "5b1f0c7e-2d4a-4f7b-9a33-0c6d5e8f9a10",
  name: "laptop",
  user_id: "usr_1",
  organization_id: null,
  tenant_id: "usr_1",
  role: null,
  scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
  effective_scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
  expires_at: null,
};

export const VALID_IDENTITY = { tenant_id: "usr_1", principal_id: "usr_1", scopes: ["read"] };

const defaults: Required<HostileRoutes> = {
  verify: (_q, res) => sendJson(res, 200, VALID_KEY_INFO),
  me: (_q, res) => sendJson(res, 200, VALID_IDENTITY),
  sessions: (_q, res) =>
    sendJson(res, 200, { sessions: [{ id: "ses_one", state: "active" }], has_more: false }),
  events: (_q, res) => sseHead(res),
  git: (_q, res) => sendJson(res, 404, { detail: "no git here" }),
  other: (_q, res) => sendJson(res, 404, { detail: "not found" }),
};

function routeOf(path: string): keyof HostileRoutes {
  if (path.startsWith("/api/cloud/auth/verify")) return "verify";
  if (path.startsWith("/api/v1/me")) return "me";
  if (/\/events(\?|$)/.test(path)) return "events";
  if (/\/git\//.test(path)) return "git";
  if (path.startsWith("/api/sessions")) return "sessions";
  return "other";
}

export async function startHostileServer(routes: HostileRoutes = {}): Promise<HostileServer> {
  const seen: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? "";
    seen.push({
      method: req.method ?? "",
      path,
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      at: performance.now(),
    });
    const name = routeOf(path);
    const n = counts.get(name) ?? 0;
    counts.set(name, n + 1);
    // A client that hangs up mid-answer is not the test's failure.
    res.on("error", () => {});
    // The real service's documented limit on every answer (100 a minute, Remaining counted
    // over the last minute, Reset as unix seconds); a route's own headers override it. A
    // client that forgets to wait for its budget shows up here, not in production.
    const now = performance.now();
    const inWindow = seen.filter((r) => now - r.at < 60_000).length;
    res.setHeader("x-ratelimit-limit", "100");
    res.setHeader("x-ratelimit-remaining", String(Math.max(0, 100 - inWindow)));
    res.setHeader("x-ratelimit-reset", String(Math.ceil(Date.now() / 1000) + 60));
    const handler = routes[name] ?? defaults[name];
    req.resume();
    handler(req, res, n);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    requestsTo: (prefix) => seen.filter((s) => s.path.startsWith(prefix)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** startHostileServer, closed after the current test (stopAfterTest.ts). */
export async function startHostile(routes: HostileRoutes = {}): Promise<HostileServer> {
  return closeAfterTest(await startHostileServer(routes));
}

/** Every piece of `secret` at least half its length: none of them may be shown. */
export function keyPieces(secret: string): string[] {
  const h = Math.ceil(secret.length / 2);
  const out: string[] = [];
  for (let i = 0; i + h <= secret.length; i++) out.push(secret.slice(i, i + h));
  return out;
}

/** The first piece of the key (half its length or more) found in `text`, or null. */
export function leakedPiece(text: string, secret = HOSTILE_KEY): string | null {
  for (const p of keyPieces(secret)) if (text.includes(p)) return p;
  return null;
}

/** C0 controls other than \t \n (and \r, which line ends may use), ESC, DEL, C1, bidi. */
export const TERMINAL_HOSTILE =
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
