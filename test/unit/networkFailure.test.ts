import { describe, expect, it } from "vitest";
import { classifyNetworkError } from "../../src/client/networkFailure.js";
import { isLoopbackHost } from "../../src/protocol/loopback.js";

const coded = (code: string) => Object.assign(new Error(code), { code });
const remote = new URL("https://agents.example.com");
const local = new URL("http://127.0.0.1:8080");

describe("classifyNetworkError", () => {
  it("refused is retried off this machine (a restarting service) but not on loopback", () => {
    expect(classifyNetworkError(coded("ECONNREFUSED"), remote)).toMatchObject({
      kind: "refused",
      retryable: true,
    });
    expect(classifyNetworkError(coded("ECONNREFUSED"), local).retryable).toBe(false);
    expect(
      classifyNetworkError(coded("ECONNREFUSED"), new URL("http://localhost:1")).retryable,
    ).toBe(false);
  });

  it("a name that does not exist is final; a failed lookup may succeed later", () => {
    expect(classifyNetworkError(coded("ENOTFOUND"), remote)).toMatchObject({
      kind: "host_not_found",
      summary: "host not found",
      retryable: false,
    });
    expect(classifyNetworkError(coded("EAI_AGAIN"), remote)).toMatchObject({
      kind: "dns_failed",
      retryable: true,
    });
  });

  it("certificate problems are TLS failures in words, never retried", () => {
    for (const [code, words] of [
      ["CERT_HAS_EXPIRED", "expired"],
      ["DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed"],
      ["ERR_TLS_CERT_ALTNAME_INVALID", "another host name"],
      ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "trusted authority"],
      ["ERR_SSL_SOMETHING_NEW", "TLS handshake failed"],
    ] as const) {
      const f = classifyNetworkError(coded(code), remote);
      expect(f.kind).toBe("tls");
      expect(f.summary).toContain(words);
      expect(f.retryable).toBe(false);
      expect(f.hint).toMatch(/certificate/);
    }
  });

  it("timeouts, resets and routing trouble are retried", () => {
    for (const [code, kind] of [
      ["UND_ERR_CONNECT_TIMEOUT", "timed_out"],
      ["UND_ERR_HEADERS_TIMEOUT", "timed_out"],
      ["ECONNRESET", "reset"],
      ["UND_ERR_SOCKET", "reset"],
      ["ENETUNREACH", "unreachable"],
    ] as const) {
      expect(classifyNetworkError(coded(code), remote)).toMatchObject({ kind, retryable: true });
    }
  });

  it("finds the code on a cause or inside an AggregateError (dual-stack connect)", () => {
    const wrapped = new Error("fetch failed", { cause: coded("ENOTFOUND") });
    expect(classifyNetworkError(wrapped, remote).kind).toBe("host_not_found");
    const both = new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")], "x");
    expect(classifyNetworkError(both, local).kind).toBe("refused");
  });

  it("a peer that does not speak HTTP is said so, and not retried", () => {
    expect(classifyNetworkError(coded("HPE_INVALID_CONSTANT"), local)).toMatchObject({
      kind: "not_http",
      retryable: false,
    });
  });
});

describe("isLoopbackHost", () => {
  it("knows this machine's names and addresses, and nothing else", () => {
    for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1", "app.localhost"]) {
      expect(isLoopbackHost(h), h).toBe(true);
    }
    for (const h of [
      "0.0.0.0",
      "::",
      "10.0.0.1",
      "example.com",
      "127.example.com",
      "localhost.com",
    ]) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
  });
});
