/**
 * Which host names mean "this machine". Shared by the client (a refused connection on
 * loopback means nothing is listening, so retrying cannot help), the credentials layer
 * (plain http on loopback does not cross a network) and the reference service's banner.
 */

const LOOPBACK_NAMES = new Set(["localhost", "::1", "[::1]"]);

/** A URL hostname (brackets allowed) or a listen address naming the loopback interface. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return (
    LOOPBACK_NAMES.has(h) ||
    h.endsWith(".localhost") ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    /^\[?::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}\]?$/.test(h)
  );
}
