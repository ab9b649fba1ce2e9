import { isLoopbackHost } from "../protocol/loopback.js";

/**
 * What went wrong below HTTP, in words a user can act on, and whether trying again can help.
 * One place decides both, for the request client and the event stream alike.
 */
export type NetworkFailureKind =
  /** Nothing listens at that host and port. */
  | "refused"
  /** The host name does not exist (DNS answered "no such name"). */
  | "host_not_found"
  /** The DNS lookup itself failed (no resolver, temporary failure). */
  | "dns_failed"
  /** Connecting, the headers or the body took longer than the timeout. */
  | "timed_out"
  /** The TLS handshake failed: certificate, host name, or no TLS on that port. */
  | "tls"
  /** The peer answered with something that is not HTTP. */
  | "not_http"
  /** An open connection was reset or closed mid-answer. */
  | "reset"
  /** No route to the host or network. */
  | "unreachable"
  | "other";

export interface NetworkFailure {
  kind: NetworkFailureKind;
  /** Node's or undici's error code, when there was one. */
  code: string | null;
  /** What happened, in a few words: "connection refused". */
  summary: string;
  /** Whether the same request a little later can succeed. */
  retryable: boolean;
  /** What to do next. */
  hint: string;
}

const CHECK_URL = "Check the base URL (--base-url / AGENT_SESSIONS_BASE_URL)";

const HINTS: Record<NetworkFailureKind, string> = {
  refused:
    "Nothing is listening there: check the base URL's port (--base-url / AGENT_SESSIONS_BASE_URL) and that the service is running.",
  host_not_found: `${CHECK_URL}: its host name does not resolve.`,
  dns_failed: "The name lookup failed: check your network and DNS, then try again.",
  timed_out:
    "The service or the network is slow or unreachable: try again, or raise AGENT_SESSIONS_TIMEOUT_MS.",
  tls: `${CHECK_URL}: https needs a valid certificate for that host (a private CA can be added with NODE_EXTRA_CA_CERTS=ca.pem).`,
  not_http: `${CHECK_URL}: the port answered, but not in HTTP (does it need https://?).`,
  reset: "The connection dropped: check your network or proxy, then try again.",
  unreachable: "No route to the host: check your network or VPN, then try again.",
  other: `${CHECK_URL} and your connection.`,
};

const TLS_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: "the service's TLS certificate has expired",
  CERT_NOT_YET_VALID: "the service's TLS certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the service's TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the service's TLS certificate chain has a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the service's TLS certificate is not from a trusted authority",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the service's TLS certificate is not from a trusted authority",
  ERR_TLS_CERT_ALTNAME_INVALID: "the service's TLS certificate is for another host name",
  ERR_SSL_WRONG_VERSION_NUMBER: "TLS handshake failed: the port does not seem to speak https",
};

const SIMPLE: Record<string, [NetworkFailureKind, string]> = {
  ECONNREFUSED: ["refused", "connection refused"],
  ENOTFOUND: ["host_not_found", "host not found"],
  EAI_NONAME: ["host_not_found", "host not found"],
  EAI_NODATA: ["host_not_found", "host not found"],
  EAI_AGAIN: ["dns_failed", "DNS lookup failed"],
  EAI_FAIL: ["dns_failed", "DNS lookup failed"],
  ETIMEDOUT: ["timed_out", "connection timed out"],
  UND_ERR_CONNECT_TIMEOUT: ["timed_out", "connection timed out"],
  UND_ERR_HEADERS_TIMEOUT: ["timed_out", "no answer in time"],
  UND_ERR_BODY_TIMEOUT: ["timed_out", "the answer stalled"],
  ECONNRESET: ["reset", "connection reset"],
  EPIPE: ["reset", "connection reset"],
  UND_ERR_SOCKET: ["reset", "connection closed by the service"],
  UND_ERR_CLOSED: ["reset", "connection closed"],
  EHOSTUNREACH: ["unreachable", "host unreachable"],
  ENETUNREACH: ["unreachable", "network unreachable"],
  EHOSTDOWN: ["unreachable", "host down"],
};

/** The error code of an error, of its cause, or of the first of an AggregateError's errors. */
export function errorCode(e: unknown): string | undefined {
  if (e === null || typeof e !== "object") return undefined;
  const o = e as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof o.code === "string") return o.code;
  if (o.cause !== undefined && o.cause !== e) {
    const c = errorCode(o.cause);
    if (c) return c;
  }
  if (Array.isArray(o.errors)) {
    for (const inner of o.errors) {
      const c = errorCode(inner);
      if (c) return c;
    }
  }
  return undefined;
}

function isTlsCode(code: string): boolean {
  return (
    Object.hasOwn(TLS_REASONS, code) ||
    /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|ERR_OSSL_)/.test(code) ||
    code === "EPROTO"
  );
}

/** A failure of a known kind without an underlying error (our own timer, a silent stream). */
export function networkFailureOfKind(
  kind: NetworkFailureKind,
  summary: string,
  retryable = kind !== "host_not_found" && kind !== "tls" && kind !== "not_http",
): NetworkFailure {
  return { kind, code: null, summary, retryable, hint: HINTS[kind] };
}

/**
 * Classifies an error thrown while talking to `target`. Retrying helps with resets, timeouts
 * and temporary DNS or routing trouble; it cannot help with a name that does not exist, a
 * certificate that does not verify, or a peer that does not speak HTTP. A refused connection
 * is retried only off this machine, where a restarting service or load balancer may refuse
 * for a moment; on loopback it means nothing is listening.
 */
export function classifyNetworkError(e: unknown, target: URL): NetworkFailure {
  const code = errorCode(e) ?? null;
  if (code !== null && Object.hasOwn(SIMPLE, code)) {
    const [kind, summary] = SIMPLE[code] as [NetworkFailureKind, string];
    const f = networkFailureOfKind(kind, summary);
    f.code = code;
    if (kind === "refused") f.retryable = !isLoopbackHost(target.hostname);
    return f;
  }
  if (code !== null && isTlsCode(code)) {
    const f = networkFailureOfKind("tls", TLS_REASONS[code] ?? "TLS handshake failed");
    f.code = code;
    return f;
  }
  if (code?.startsWith("HPE_")) {
    const f = networkFailureOfKind("not_http", "the answer was not HTTP");
    f.code = code;
    return f;
  }
  const f = networkFailureOfKind("other", code ?? "connection failed");
  f.code = code;
  return f;
}

/** "connection refused (ECONNREFUSED)", for messages. */
export function describeFailure(f: NetworkFailure): string {
  return f.code && f.code !== f.summary ? `${f.summary}, ${f.code}` : f.summary;
}
