import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { ServiceRoutes } from "../../src/client/routes.js";
import { createIntegrationsStore } from "../../src/store/integrations/integrationsStore.js";
import { keyRedactor } from "../../src/text/redact.js";
import { integrationsViewLines } from "../../src/ui/model/integrations.js";
import { json, type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";

// The UI's store of the integrations against a hostile service: escape sequences, bidi
// controls and the key itself in names, URLs and health issues never reach the screen.

const KEY = "ask_hostile_key_0123456789abcdefghij";
let s: ScriptedServer | null = null;
afterEach(async () => {
  await s?.close();
  s = null;
});

describe("the integrations store", () => {
  it("keeps every string sanitized and without the key", async () => {
    s = await startScriptedServer();
    const evil = `acme\u001b[2J\u001b]8;;https://evil.example\u0007\u202e${KEY}`;
    s.fallback((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const inst = {
        id: "i1",
        account_login: evil,
        account_type: "Organization",
        configure_url: `https://github.com/x\u001b[31m/${KEY}`,
      };
      const answers: Record<string, [number, unknown]> = {
        "/api/github-app/installations": [200, { installations: [inst], total: 1 }],
        "/api/github-app/repos": [
          200,
          {
            installations: [
              {
                installation: inst,
                repos: [{ full_name: `acme/${evil}`, default_branch: "ma\u001b[1min" }],
                total_count: 1,
              },
            ],
          },
        ],
        "/api/github-app/user-token-status": [200, { connected: true, username: evil }],
        "/api/v1/linear/integrations": [200, { integrations: [{ name: evil }] }],
        "/api/v1/slack/integration": [
          200,
          { connected: true, service_account_health: { healthy: false, issues: [evil] } },
        ],
      };
      const [status, body] = answers[path] ?? [404, { detail: "Not Found" }];
      json(status, body, { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99" })(
        req,
        res,
        "",
        0,
      );
    });
    const client = new ApiClient({
      baseUrl: s.url,
      apiKey: KEY,
      routes: new ServiceRoutes(s.url, KEY, null),
      maxAttempts: 1,
    });
    const store = createIntegrationsStore(client, { redact: keyRedactor(KEY).redact });
    const report = await store.getState().load();
    const text = JSON.stringify(report);
    expect(text).not.toContain(KEY);
    expect(text).not.toMatch(/\\u001b|\u001b|\u0007|\u202e/);
    const lines = integrationsViewLines(report, false).map((l) => l.text);
    expect(lines.some((l) => l.includes("acme"))).toBe(true);
    for (const l of lines) expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });
});
