import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";

/**
 * Network fixtures on loopback: a proxy that answers CONNECT and forward requests, a
 * throwaway certificate authority made with openssl, and a TLS front (with a path prefix)
 * for any loopback http service. Each returns a close() that ends what it started.
 */

export interface ProxyServer {
  url: string;
  port: number;
  /** Requests as the proxy received them: "CONNECT host:port" or "GET http://host/path". */
  seen: string[];
  /** Every byte the proxy relayed from the client, as latin1 text (to look for secrets). */
  clientBytes(): string;
  close(): Promise<void>;
}

/**
 * A proxy that resolves `hosts` (name → 127.0.0.1 port stays) itself: a name nothing else on
 * this machine can resolve reaches the service only through it.
 */
export async function startProxy(hosts: Record<string, string> = {}): Promise<ProxyServer> {
  const seen: string[] = [];
  const relayed: Buffer[] = [];
  const sockets = new Set<Socket>();
  const resolve = (host: string) => hosts[host.toLowerCase()] ?? host;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => {
      chunks.push(c);
      relayed.push(c);
    });
    relayed.push(Buffer.from(JSON.stringify(req.headers), "latin1"));
    req.on("end", () => {
      const headers = { ...req.headers };
      delete headers["proxy-connection"];
      const up = httpRequest(
        {
          host: resolve(target.hostname),
          port: target.port || 80,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers,
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on("close", () => up.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host = "", port = "443"] = (req.url ?? "").split(/:(?=\d+$)/);
    const up = connect(Number(port), resolve(host), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) up.write(head);
      client.on("data", (c: Buffer) => relayed.push(c));
      client.pipe(up);
      up.pipe(client);
    });
    sockets.add(up);
    sockets.add(client);
    const end = () => {
      up.destroy();
      client.destroy();
    };
    up.on("error", () => {
      if (!client.destroyed) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    });
    client.on("error", end);
    up.on("close", () => client.destroy());
    client.on("close", () => up.destroy());
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    clientBytes: () => Buffer.concat(relayed).toString("latin1"),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A proxy that accepts each connection, reads the first bytes of the request (a forward
 * request or a CONNECT) and then hangs up: with a FIN (`close`) or a TCP reset (`reset`).
 */
export async function startHangUpProxy(
  mode: "close" | "reset",
): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createTcpServer((s) => {
    connections += 1;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => {});
    s.once("data", () => (mode === "reset" ? s.resetAndDestroy() : s.destroy()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export interface ThrowawayCa {
  /** The CA certificate (PEM file): what NODE_EXTRA_CA_CERTS names. */
  caFile: string;
  key: string;
  cert: string;
  cleanup(): void;
}

/** A CA and a server certificate it signed for `names` (and 127.0.0.1), made with openssl. */
export function makeThrowawayCa(names: string[]): ThrowawayCa {
  const dir = mkdtempSync(join(tmpdir(), "as-ca-"));
  const p = (f: string) => join(dir, f);
  const ssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  try {
    ssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      p("ca.key"),
      "-out",
      p("ca.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=agent-sessions test CA",
    );
    ssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      p("srv.key"),
      "-out",
      p("srv.csr"),
      "-subj",
      `/CN=${names[0] ?? "localhost"}`,
    );
    const san = [...names.map((n) => `DNS:${n}`), "IP:127.0.0.1"].join(",");
    writeFileSync(p("ext.cnf"), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
    ssl(
      "x509",
      "-req",
      "-in",
      p("srv.csr"),
      "-CA",
      p("ca.pem"),
      "-CAkey",
      p("ca.key"),
      "-CAcreateserial",
      "-out",
      p("srv.pem"),
      "-days",
      "2",
      "-extfile",
      p("ext.cnf"),
    );
    return {
      caFile: p("ca.pem"),
      key: readFileSync(p("srv.key"), "utf8"),
      cert: readFileSync(p("srv.pem"), "utf8"),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

export interface TlsFront {
  /** https://127.0.0.1:port/prefix */
  url: string;
  port: number;
  /** Paths as the front received them (prefix included). */
  seen: string[];
  close(): Promise<void>;
}

/**
 * An https server that serves `target` (a loopback http service) under `prefix`: a request
 * outside the prefix gets 404 without reaching it.
 */
export async function startTlsFront(
  target: string,
  ca: Pick<ThrowawayCa, "key" | "cert">,
  prefix = "",
): Promise<TlsFront> {
  const seen: string[] = [];
  const up = new URL(target);
  const server = createHttpsServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const path = req.url ?? "/";
    seen.push(path);
    if (!path.startsWith(`${prefix}/`)) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
      req.resume();
      return;
    }
    const fwd = httpRequest(
      {
        host: up.hostname,
        port: up.port,
        method: req.method,
        path: path.slice(prefix.length),
        headers: { ...req.headers, host: up.host },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    fwd.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    res.on("close", () => fwd.destroy());
    req.pipe(fwd);
  });
  // WebSocket upgrades (the session terminal) go through under the prefix as well.
  const tunnels = new Set<Socket>();
  server.on("upgrade", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const path = req.url ?? "/";
    seen.push(path);
    if (!path.startsWith(`${prefix}/`)) {
      client.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    const upstream = connect(Number(up.port), up.hostname, () => {
      const lines = [`${req.method} ${path.slice(prefix.length)} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i] ?? "";
        lines.push(`${name}: ${name.toLowerCase() === "host" ? up.host : req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    tunnels.add(upstream);
    tunnels.add(client);
    const end = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on("error", end);
    client.on("error", end);
    upstream.on("close", () => tunnels.delete(upstream));
    client.on("close", () => tunnels.delete(client));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}${prefix}`,
    port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const t of tunnels) t.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * The reference service on the network path a user behind a corporate proxy takes: a TLS
 * front signed by a throwaway CA, under `prefix`, whose host name `host` only the proxy
 * resolves. close() ends all of it.
 */
export interface ServiceBehindProxy {
  server: ReferenceServer;
  proxy: ProxyServer;
  ca: ThrowawayCa;
  front: TlsFront;
  close(): Promise<void>;
}

export async function startServiceBehindProxy(opts: {
  server: ServerOptions;
  host: string;
  prefix: string;
}): Promise<ServiceBehindProxy> {
  const server = await startServer(opts.server);
  let proxy: ProxyServer | undefined;
  let ca: ThrowawayCa | undefined;
  let front: TlsFront | undefined;
  const close = async () => {
    await front?.close();
    await proxy?.close();
    await server.close();
    ca?.cleanup();
  };
  try {
    proxy = await startProxy({ [opts.host]: "127.0.0.1" });
    ca = makeThrowawayCa([opts.host]);
    front = await startTlsFront(server.url, ca, opts.prefix);
  } catch (e) {
    await close();
    throw e;
  }
  return { server, proxy, ca, front, close };
}
