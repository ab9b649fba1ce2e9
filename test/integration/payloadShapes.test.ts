import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import {
  ANNOUNCED_LIMITS,
  json,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";

/**
 * Process output in the shapes real servers send (the interface leaves the payload open),
 * through `watch` of the built binary: each line shows the payload's text, its stream from
 * `stream` or `fd`, colours only where asked for, and other shapes as compact JSON with no
 * escape spelled out.
 */

const cfg = tempConfigHome();
afterAll(() => cfg.cleanup());

const KEY = "sk_test_0123456789abcdef0123456789";
const VERIFY = {
  valid: true,
  key_id: "k1",
  name: "ci key",
  user_id: "usr_1",
  organization_id: null,
  role: "member",
  scopes: ["sessions:read", "sessions:prompt"],
  effective_scopes: ["sessions:read", "sessions:prompt"],
  expires_at: null,
};

/** One payload per item, all of process_output. */
const PAYLOADS = [
  { text: "plain text\n", stream: "stdout" },
  { content: "\u001b[32m✓\u001b[0m test 3 passed" },
  { stream: "stdout", data: "line 2" },
  { stream: "stderr", data: "warning: deprecated" },
  { fd: 2, output: "fd two\n" },
  { line: "a line", ts: 1 },
  { message: "from message" },
  { pid: 4, note: "\u001b[31mred\u001b]0;title\u0007 end" },
];

async function serve(): Promise<ScriptedServer> {
  const s = await startScriptedServer();
  s.fallback((req: IncomingMessage, res: ServerResponse, body: string, n: number) => {
    if (new URL(req.url ?? "/", s.url).pathname.endsWith("/events")) {
      res.writeHead(200, { "content-type": "text/event-stream", ...ANNOUNCED_LIMITS });
      res.end(
        PAYLOADS.map((p) => `event: process_output\ndata: ${JSON.stringify(p)}\n\n`).join(""),
      );
      return;
    }
    if (req.url === "/api/cloud/auth/verify")
      return json(200, VERIFY, ANNOUNCED_LIMITS)(req, res, body, n);
    json(200, { id: "ses_a1", state: "active" }, ANNOUNCED_LIMITS)(req, res, body, n);
  });
  return s;
}

const env = (s: ScriptedServer, extra: Record<string, string> = {}) => ({
  XDG_CONFIG_HOME: cfg.dir,
  AGENT_SESSIONS_BASE_URL: s.url,
  AGENT_SESSIONS_API_KEY: KEY,
  AGENT_SESSIONS_MAX_ATTEMPTS: "1",
  ...extra,
});

describe("watch shows process output of every shape by its text", () => {
  it("reads text, content, data, output, line, message; stream or fd; others compact", async () => {
    const s = await serve();
    try {
      const r = await runCli(["watch", "ses_a1", "--max-events", String(PAYLOADS.length)], {
        env: env(s),
      });
      expect(r.code).toBe(0);
      const lines = r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => l.replace(/^\d\d:\d\d:\d\d /, ""));
      expect(lines).toEqual([
        "output [stdout] plain text",
        "output ✓ test 3 passed",
        "output [stdout] line 2",
        "output [stderr] warning: deprecated",
        "output [stderr] fd two",
        "output a line",
        "output from message",
        'output {"pid":4,"note":"red end"}',
      ]);
      expect(r.stdout).not.toContain("\\u001b");
      expect(r.stdout).not.toContain("\u001b");
    } finally {
      await s.close();
    }
  });

  it("--json keeps each payload as the server sent it", async () => {
    const s = await serve();
    try {
      const r = await runCli(["watch", "ses_a1", "--json", "--max-events", "3"], { env: env(s) });
      expect(r.code).toBe(0);
      const data = r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => (JSON.parse(l) as { data: unknown }).data);
      expect(data).toEqual(PAYLOADS.slice(0, 3));
    } finally {
      await s.close();
    }
  });
});
