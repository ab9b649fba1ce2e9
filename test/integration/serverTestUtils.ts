import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

/** Helpers for the reference service's own tests: plain HTTP and a raw SSE reader. */

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function api(
  base: string,
  path: string,
  opts: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, {
    method: opts.method ?? "GET",
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = null;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: res.status, headers: res.headers, body };
}

/** Poll a condition (bounded) instead of sleeping. */
export async function waitFor(cond: () => boolean, timeoutMs = 5_000, what = "condition") {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface SseItem {
  event: string;
  data: string;
  id: string | null;
}

export interface SseClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every byte received, decoded. */
  raw: () => string;
  items: SseItem[];
  /** Items with an id (everything but heartbeats). */
  events: () => SseItem[];
  heartbeats: () => SseItem[];
  comments: () => number;
  ended: () => boolean;
  close: () => void;
}

/**
 * A deliberately small SSE reader (WHATWG line rules: CR, LF or CRLF; comments; multi-line
 * data), independent of the product's client, so these tests check the server's bytes.
 */
export function openSse(
  url: string,
  key: string | undefined,
  opts: { lastEventId?: string } = {},
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    if (opts.lastEventId !== undefined) headers["last-event-id"] = opts.lastEventId;
    const req = httpRequest(url, { headers, agent: false });
    req.on("error", (e) => {
      if (!done) reject(e);
    });
    let done = false;
    req.on("response", (res) => {
      done = true;
      res.setEncoding("utf8");
      let raw = "";
      let buf = "";
      let ended = false;
      let comments = 0;
      const items: SseItem[] = [];
      let event = "";
      let data: string[] = [];
      let id: string | null = null;
      const line = (l: string) => {
        if (l === "") {
          if (data.length > 0) items.push({ event: event || "message", data: data.join("\n"), id });
          event = "";
          data = [];
          id = null;
          return;
        }
        if (l.startsWith(":")) {
          comments++;
          return;
        }
        const colon = l.indexOf(":");
        const field = colon === -1 ? l : l.slice(0, colon);
        let value = colon === -1 ? "" : l.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") id = value;
      };
      // WHATWG: CR ends a line at once; an LF right after it (maybe in the next chunk) is skipped.
      let skipLf = false;
      const drain = () => {
        for (;;) {
          if (skipLf && buf.startsWith("\n")) buf = buf.slice(1);
          if (buf !== "") skipLf = false;
          const m = /\r\n|\r|\n/.exec(buf);
          if (!m) break;
          line(buf.slice(0, m.index));
          buf = buf.slice(m.index + m[0].length);
          if (m[0] === "\r") skipLf = true;
        }
      };
      res.on("data", (chunk: string) => {
        raw += chunk;
        buf += chunk;
        drain();
      });
      res.on("end", () => {
        drain();
        ended = true;
      });
      res.on("close", () => {
        ended = true;
      });
      res.on("error", () => {
        ended = true;
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        raw: () => raw,
        items,
        events: () => items.filter((i) => i.id !== null),
        heartbeats: () => items.filter((i) => i.event === "heartbeat"),
        comments: () => comments,
        ended: () => ended,
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.end();
  });
}
