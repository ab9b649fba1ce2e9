import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { stopAfterTest } from "./stopAfterTest.js";

/** What a scripted server saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  socket: Socket;
  /** True once the response is closed (ended, or the connection went away). */
  closed: boolean;
  /** When it arrived (Date.now()). */
  at: number;
}

/** Answers one request; `n` is its index in `seen` (0 for the first request). */
export type Responder = (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  n: number,
) => void;

/**
 * A loopback HTTP server answering from a queue of responders, for behaviour the reference
 * service cannot be told to produce exactly (a given 429 sequence, a malformed body, a
 * redirect to another origin). When the queue is empty it uses the fallback (404 by default).
 */
export interface ScriptedServer {
  url: string;
  origin: string;
  seen: SeenRequest[];
  /** Queue responders, used once each in order. */
  reply(...responders: Responder[]): void;
  /** Responder used when the queue is empty. */
  fallback(r: Responder): void;
  close(): Promise<void>;
}

/** The real service's limits as a scripted answer announces them: 100 a minute, 99 left. */
export const ANNOUNCED_LIMITS = {
  "x-ratelimit-limit": "100",
  "x-ratelimit-remaining": "99",
  "x-ratelimit-reset": "60",
};

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Responder {
  return (_req, res) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(text);
  };
}

export function raw(status: number, text: string, headers: Record<string, string> = {}): Responder {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(text);
  };
}

/** Never answers: for timeouts. */
export const hang: Responder = () => {};

export async function startScriptedServer(): Promise<ScriptedServer> {
  const queue: Responder[] = [];
  let fb: Responder = json(404, { detail: "no scripted answer" });
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const entry: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        socket: req.socket,
        closed: false,
        at: Date.now(),
      };
      seen.push(entry);
      res.on("close", () => {
        entry.closed = true;
      });
      (queue.shift() ?? fb)(req, res, body, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    origin,
    seen,
    reply: (...r) => {
      queue.push(...r);
    },
    fallback: (r) => {
      fb = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function unusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/**
 * A loopback HTTP server answering with the test's own `listener`, closed after the test
 * (stopAfterTest.ts) with every connection still open; its base URL.
 */
export async function serveOnLoopback(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stopAfterTest(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
