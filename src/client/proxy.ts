import { Client, type Dispatcher, Pool } from "undici";
import { errorCode, type NetworkFailure, networkFailureOfKind } from "./networkFailure.js";

/** A proxy named by the environment, and which variable named it (for messages). */
export interface ProxySetting {
  url: string;
  variable: string;
  /** The proxy's URL without user and password: what a message may show. */
  shown: string;
  host: string;
  port: number;
}

export interface ProxySettings {
  /** For http:// services. */
  http: ProxySetting | null;
  /** For https:// services (HTTPS_PROXY, else the http proxy, as undici and Node choose). */
  https: ProxySetting | null;
  /** Hosts that go direct (NO_PROXY), as given. */
  noProxy: string;
}

function first(
  env: NodeJS.ProcessEnv,
  names: string[],
): { value: string; variable: string } | null {
  for (const variable of names) {
    const value = env[variable];
    if (value !== undefined && value.trim() !== "") return { value: value.trim(), variable };
  }
  return null;
}

function setting(found: { value: string; variable: string } | null): ProxySetting | null {
  if (found === null) return null;
  let url: URL;
  try {
    // curl takes a bare host:port as an http proxy.
    url = new URL(
      /^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`,
    );
  } catch {
    throw new ProxyConfigError(`${found.variable} is not a valid proxy URL`, found.variable);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ProxyConfigError(
      `${found.variable} names a ${url.protocol.replace(/:$/, "")} proxy; only http:// and https:// proxies are supported`,
      found.variable,
    );
  }
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return {
    url: url.href,
    variable: found.variable,
    shown: `${url.protocol}//${url.host}`,
    host,
    port,
  };
}

/** A proxy variable that cannot be used: said before anything is sent. */
export class ProxyConfigError extends Error {
  readonly exitCode = 2;
  readonly hint: string;
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
    this.name = "ProxyConfigError";
    this.hint = `Fix or unset ${variable} (e.g. ${variable}=http://proxy.example:3128).`;
  }
}

/**
 * The proxies the environment names, read the way curl and gh read them: the lower-case
 * variable first, then the upper-case one. This is the one place they are read; the
 * dispatcher is given exactly these.
 */
export function proxySettings(env: NodeJS.ProcessEnv = process.env): ProxySettings {
  const http = setting(first(env, ["http_proxy", "HTTP_PROXY"]));
  const https = setting(first(env, ["https_proxy", "HTTPS_PROXY"])) ?? http;
  const noProxy = first(env, ["no_proxy", "NO_PROXY"])?.value ?? "";
  return { http, https, noProxy };
}

/**
 * When a request failed at the proxy rather than at the service (the proxy refused the
 * connection, does not resolve, or refused the tunnel), the failure in those words, naming
 * the variable to look at. Null when the failure is the service's (or no proxy is in play).
 */
export function proxyFailure(
  e: unknown,
  target: URL,
  proxies: ProxySettings,
): { message: string; failure: NetworkFailure } | null {
  const proxy = target.protocol === "https:" ? proxies.https : proxies.http;
  if (proxy === null) return null;
  const code = errorCode(e) ?? null;
  const text = errorText(e);
  const tunnel = /Proxy response \((\d{3})\)/.exec(text);
  if (tunnel) {
    const status = tunnel[1];
    const f = networkFailureOfKind("other", `the proxy refused the tunnel (HTTP ${status})`, false);
    f.code = code;
    f.hint =
      status === "407"
        ? `The proxy wants credentials: put them in ${proxy.variable} (http://user:password@host:port).`
        : `The proxy ${proxy.shown} (${proxy.variable}) would not connect to ${target.host}: check its rules, or list the host in NO_PROXY.`;
    return {
      message: `the proxy ${proxy.shown} from ${proxy.variable} refused to connect to ${target.host} (HTTP ${status})`,
      failure: f,
    };
  }
  if (code !== TUNNEL_DROPPED && !onProxyConnection(e)) {
    const at = errorTarget(e);
    if (at === null) return null;
    const sameHost =
      at.host === proxy.host ||
      (at.host === null && code !== null && /^(ENOTFOUND|EAI_)/.test(code));
    if (!sameHost || (at.port !== null && at.port !== proxy.port)) return null;
  }
  const what =
    code === TUNNEL_DROPPED
      ? `closed the connection before the tunnel to ${target.host} was open`
      : code === "ECONNREFUSED"
        ? "refused the connection"
        : code === "ENOTFOUND" || code === "EAI_NONAME" || code === "EAI_AGAIN"
          ? "does not resolve"
          : code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT"
            ? "did not answer in time"
            : code === "ECONNRESET"
              ? "reset the connection"
              : code === "UND_ERR_SOCKET"
                ? "closed the connection"
                : `failed (${code ?? "unknown error"})`;
  const dropped = code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === TUNNEL_DROPPED;
  const f = networkFailureOfKind("other", `proxy ${what}`, dropped || code === "ETIMEDOUT");
  f.code = code;
  f.hint = `Check ${proxy.variable} (${proxy.shown}) and that the proxy runs, or unset it (or list ${target.hostname} in NO_PROXY) to connect directly.`;
  return {
    message: `could not reach the proxy ${proxy.shown} from ${proxy.variable}: it ${what}`,
    failure: f,
  };
}

/** The host and port a socket error was about, from the error or its causes. */
function errorTarget(e: unknown): { host: string | null; port: number | null } | null {
  for (
    let cur: unknown = e, depth = 0;
    cur !== null && typeof cur === "object" && depth < 5;
    depth++
  ) {
    const o = cur as {
      address?: unknown;
      hostname?: unknown;
      port?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    const host =
      typeof o.address === "string"
        ? o.address
        : typeof o.hostname === "string"
          ? o.hostname
          : null;
    if (host !== null || typeof o.port === "number") {
      return { host, port: typeof o.port === "number" ? o.port : null };
    }
    if (Array.isArray(o.errors) && o.errors.length > 0) cur = o.errors[0];
    else cur = o.cause;
  }
  return null;
}

function errorText(e: unknown): string {
  const parts: string[] = [];
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; depth++) {
    parts.push(cur.message);
    cur = (cur as { cause?: unknown }).cause;
  }
  return parts.join(" ");
}

/** The code of a tunnel the proxy closed before it was open (see proxyClients). */
const TUNNEL_DROPPED = "AGENT_SESSIONS_PROXY_TUNNEL_DROPPED";

/** Errors undici reported on a connection to a proxy, as opposed to one to the service. */
const proxyConnectionErrors = new WeakSet<object>();

/** The error, or one of its causes, came from a connection to a proxy. */
function onProxyConnection(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur !== null && typeof cur === "object"; depth++) {
    if (depth >= 5) return false;
    if (proxyConnectionErrors.has(cur)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** A CONNECT the proxy closed or reset before answering it. */
class TunnelDroppedError extends Error {
  readonly code = TUNNEL_DROPPED;
  constructor(override readonly cause: unknown) {
    super("the proxy closed the connection before the tunnel was open");
    this.name = "TunnelDroppedError";
  }
}

/** Marks what a connection to a proxy fails with, so its failures are told as the proxy's. */
function watched<D extends Dispatcher>(d: D): D {
  const mark = (_origin: unknown, _targets: unknown, err: unknown) => {
    if (err !== null && typeof err === "object") proxyConnectionErrors.add(err);
  };
  d.on("disconnect", mark);
  d.on("connectionError", mark);
  return d;
}

/**
 * A CONNECT's socket closing before the proxy answered ends the tunnel's opening with an
 * error of its own. Undici (7.x, nodejs/undici#3897) takes the plain socket error for one it
 * may retry, and reconnects to the proxy in a tight loop that neither a timeout nor an abort
 * ends: a proxy that hangs up on CONNECT would hold a command forever at full CPU.
 */
const tunnelDrops: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  if (opts.method !== "CONNECT") return dispatch(opts, handler);
  const h = handler as Dispatcher.DispatchHandler;
  return dispatch(opts, {
    onRequestStart: (c, ctx) => h.onRequestStart?.(c, ctx),
    onRequestUpgrade: (c, status, headers, socket) =>
      h.onRequestUpgrade?.(c, status, headers, socket),
    onResponseStart: (c, status, headers, message) =>
      h.onResponseStart?.(c, status, headers, message),
    onResponseData: (c, chunk) => h.onResponseData?.(c, chunk),
    onResponseEnd: (c, trailers) => h.onResponseEnd?.(c, trailers),
    onResponseError: (c, err) => {
      const code = errorCode(err);
      const dropped = code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE";
      h.onResponseError?.(c, dropped ? new TunnelDroppedError(err) : err);
    },
  });
};

/**
 * The dispatcher factories (public options of undici's ProxyAgent, which EnvHttpProxyAgent
 * passes on) that let the transport tell a proxy's failures from the service's: the client
 * to a proxy (a CONNECT tunnel's, or a forward proxy's) has its failures marked, and a tunnel
 * the proxy drops while it opens fails instead of looping.
 */
export function proxyClients(proxies: ProxySettings): {
  clientFactory: (origin: URL, opts: object) => Dispatcher;
  factory: (origin: string | URL, opts: object) => Dispatcher;
} {
  const origins = new Set<string>();
  for (const p of [proxies.http, proxies.https]) if (p) origins.add(new URL(p.url).origin);
  return {
    clientFactory: (origin, opts) => watched(new Pool(origin, opts)).compose(tunnelDrops),
    factory: (origin, opts) => {
      // As undici's own default: one connection asked for is a Client, else a Pool.
      const d =
        (opts as { connections?: number | null }).connections === 1
          ? new Client(origin, opts)
          : new Pool(origin, opts);
      return origins.has(new URL(String(origin)).origin) ? watched(d) : d;
    },
  };
}
