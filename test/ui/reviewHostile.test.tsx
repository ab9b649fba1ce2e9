import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  HOSTILE_KEY,
  type HostileRoutes,
  leakedPiece,
  sendJson,
  VALID_KEY_INFO,
} from "../helpers/hostileServer.js";
import {
  type HostileApp,
  mountOnHostile,
  pressKey,
  type UiHarness,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * The changes view, the files browser and the links menu against small loopback servers:
 * a diff with escape sequences and the user's key inside is drawn sanitized with the key
 * masked, a binary file is named, a 50,000-line diff stays responsive, a paused session is
 * offered a resume first, and the links menu copies with the client's own OSC 52.
 */

afterEach(unmountReference);

function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString("utf8");
    });
    req.on("end", () => resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {}));
  });
}

/** A git endpoint that answers status and diff (the documented `{operation}` body). */
function gitAnswers(diff: string, status: unknown[]): HostileRoutes["git"] {
  return (req: IncomingMessage, res: ServerResponse) => {
    void bodyOf(req).then((b) => {
      if (b.operation === "diff") sendJson(res, 200, { success: true, result: { diff } });
      else if (b.operation === "status")
        sendJson(res, 200, { success: true, result: { files: status } });
      else sendJson(res, 400, { detail: "unknown operation" });
    });
  };
}

/** The session routes: the list, the record, resume, and the workspace's files and ports. */
function sessionRoutes(
  opts: {
    record?: () => Record<string, unknown>;
    onResume?: () => void;
    files?: unknown;
    file?: unknown;
    ports?: unknown;
  } = {},
): HostileRoutes["sessions"] {
  const record = opts.record ?? (() => ({ id: "ses_one", state: "active" }));
  return (req, res) => {
    const path = new URL(req.url ?? "", "http://x").pathname;
    if (req.method === "POST" && path.endsWith("/resume")) {
      opts.onResume?.();
      sendJson(res, 200, record());
    } else if (path.endsWith("/files") && opts.files) sendJson(res, 200, opts.files);
    else if (path.endsWith("/file") && opts.file) sendJson(res, 200, opts.file);
    else if (path.endsWith("/workspace-state") && opts.ports) sendJson(res, 200, opts.ports);
    else if (/^\/api\/sessions\/ses_one$/.test(path)) sendJson(res, 200, record());
    else if (path === "/api/sessions")
      sendJson(res, 200, { sessions: [record()], has_more: false });
    else sendJson(res, 404, { detail: "not found" });
  };
}

/** The UI on `routes`, where nothing opens a browser. */
function mount(
  routes: HostileRoutes,
  size = { columns: 120, rows: 32 },
  opts: { notifyOut?: (s: string) => void } = {},
): Promise<HostileApp> {
  return mountOnHostile(routes, size, {
    services: { openUrl: async () => ({ opened: false, error: "No xdg-open here to open it" }) },
    props: { options: { bell: false, ...(opts.notifyOut ? { notifyOut: opts.notifyOut } : {}) } },
  });
}

function expectNoKey(h: UiHarness): void {
  expect(leakedPiece(h.frame())).toBeNull();
  for (const w of h.writes) expect(leakedPiece(w.replace(/\x1b\[[0-9;]*m/g, ""))).toBeNull();
}

/** Escapes the terminal would obey, were they passed through. */
const DRIVES = /\x1b\](?:52|8|0);|\x1b\[2J|\x1bP|\x07|\u202e/;

const HOSTILE_DIFF = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,3 +1,4 @@",
  " const a = 1;",
  `-const key = "old";`,
  `+const key = "${HOSTILE_KEY}";`,
  "+title\x1b]0;pwned\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J cleared \u202eevil",
  ` // a piece ${HOSTILE_KEY.slice(0, 25)}`,
  "diff --git a/img/logo.png b/img/logo.png",
  "index 3333333..4444444 100644",
  "Binary files a/img/logo.png and b/img/logo.png differ",
  "",
].join("\n");

describe("the changes view draws server text safely", () => {
  it("sanitizes escapes, masks the key, names a binary file and counts +/−", async () => {
    const { h } = await mount({
      git: gitAnswers(HOSTILE_DIFF, [
        { path: "src/app.ts", status: "modified" },
        { path: "img/logo.png", status: "modified" },
        { path: "notes.txt", status: "untracked" },
      ]),
    });
    await waitForContent(h, "ses_one");
    await pressKey(h, "d");
    const frame = await waitForContent(h, "binary file: named, not shown");
    expect(frame).toContain("2 files changed (and 1 without a patch), +2 −1");
    expect(frame).toContain("M src/app.ts  +2 −1");
    expect(frame).toContain("M img/logo.png  binary");
    expect(frame).toContain("? notes.txt  untracked, no patch (git status)");
    expect(frame).toContain("@@ -1,3 +1,4 @@");
    expect(frame).toContain("cleared");
    expectNoKey(h);
    for (const w of h.writes) expect(w.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(DRIVES);
    // Hunk and file keys move the window; the key stays masked wherever it is cut.
    // Past the summary (its line, three files, a blank): the first file's header, its hunk.
    await pressKey(h, "}");
    await waitForContent(h, /row 6\//);
    await pressKey(h, "]");
    await waitForContent(h, /row 7\//);
    expectNoKey(h);
    // Search inside the diff: the match is the top row.
    await pressKey(h, "g");
    await pressKey(h, "/");
    for (const c of "cleared") await pressKey(h, c);
    await pressKey(h, "enter");
    const found = await waitForContent(h, "/cleared (n/N)");
    expect(found.split("\n").find((l) => l.includes("│ +title"))).toBeDefined();
    await pressKey(h, "escape");
    await pressKey(h, "escape");
    await waitForContent(h, (f) => !f.includes("Changes of"));
  });

  it("opens a 50,000-line diff, moves to its end and finds a line by search", async () => {
    const lines = ["diff --git a/big.txt b/big.txt", "--- a/big.txt", "+++ b/big.txt"];
    // Many hunks and one long one.
    for (let h = 0; h < 400; h++) {
      lines.push(`@@ -${h * 100 + 1},25 +${h * 100 + 1},25 @@`);
      for (let i = 0; i < 50; i++) lines.push(i % 2 ? `+added ${h}.${i}` : `-removed ${h}.${i}`);
    }
    lines.push("@@ -0,0 +1,30000 @@");
    for (let i = 0; i < 30_000; i++) lines.push(`+long ${i}`);
    const { h } = await mount(
      { git: gitAnswers(`${lines.join("\n")}\n`, []) },
      { columns: 120, rows: 40 },
    );
    await waitForContent(h, "ses_one");
    // Each step within a frame wait's bound; how fast, the bench measures (B17), not a test.
    await pressKey(h, "d");
    await waitForContent(h, "big.txt  +40000 −10000");
    await pressKey(h, "G");
    await waitForContent(h, "+long 29999");
    await pressKey(h, "/");
    for (const c of "long 15000") await pressKey(h, c);
    await pressKey(h, "enter");
    await waitForContent(h, /│ \+long 15000/);
  });
});

describe("a paused session", () => {
  it("is offered a resume first, then the changes view opens", async () => {
    let state = "paused";
    const { h, server } = await mount({
      sessions: sessionRoutes({
        record: () => ({ id: "ses_one", state }),
        onResume: () => {
          state = "active";
        },
      }),
      git: gitAnswers(HOSTILE_DIFF, []),
    });
    await waitForContent(h, "ses_one");
    await pressKey(h, "d");
    const ask = await waitForContent(h, "Paused — resume first?");
    expect(ask).toContain("then opens its changes");
    expect(server.seen.filter((r) => r.path.includes("/git"))).toEqual([]);
    await pressKey(h, "y");
    await waitForContent(h, "M src/app.ts  +2 −1");
    expect(server.seen.some((r) => r.method === "POST" && r.path.endsWith("/resume"))).toBe(true);
  });
});

describe("the links menu", () => {
  it("lists validated URLs, refuses a hostile one, and copies with the client's OSC 52", async () => {
    const out: string[] = [];
    const { h } = await mount(
      {
        sessions: sessionRoutes({
          record: () => ({
            id: "ses_one",
            state: "active",
            preview_url: "https://preview.example.com/app",
            sandbox_url: "javascript:alert(1)\x1b]52;c;cHduZWQ=\x07",
          }),
          ports: { detected_ports: [{ port: 3000, process: "node" }] },
        }),
      },
      { columns: 120, rows: 32 },
      { notifyOut: (s) => out.push(s) },
    );
    await waitForContent(h, "ses_one");
    await pressKey(h, "u");
    const menu = await waitForContent(h, "port 3000");
    expect(menu).toContain("preview       https://preview.example.com/app");
    expect(menu).toContain("sandbox       not an http(s) URL: javascript:alert(1)");
    await pressKey(h, "c");
    await waitForContent(h, "Copied the preview to the clipboard");
    const seq = `\x1b]52;c;${Buffer.from("https://preview.example.com/app").toString("base64")}\x07`;
    expect(out).toEqual([seq]);
    // Enter where no browser opener exists: the URL is shown instead.
    await pressKey(h, "enter");
    await waitForContent(h, "No xdg-open here to open it: https://preview.example.com/app");
    // The hostile one is neither opened nor copied.
    await pressKey(h, "down");
    await pressKey(h, "down");
    await pressKey(h, "c");
    await waitForContent(h, "Nothing to copy here");
    expect(out).toHaveLength(1);
    for (const w of h.writes) expect(w).not.toContain("cHduZWQ=");
  });
});

describe("a read-only key", () => {
  it("sees the changes key disabled with its scope, and may browse files", async () => {
    const readOnly = {
      ...VALID_KEY_INFO,
      scopes: ["sessions:read"],
      effective_scopes: ["sessions:read"],
    };
    const { h, server } = await mount(
      {
        verify: (_q, res) => sendJson(res, 200, readOnly),
        sessions: sessionRoutes({
          files: {
            files: [
              { name: "src", path: "/src", type: "directory", size: 0 },
              { name: "README.md", path: "/README.md", type: "file", size: 12 },
            ],
          },
          file: { path: "/README.md", content: "# hello\nsecond line\n", size: 20 },
        }),
      },
      { columns: 200, rows: 32 },
    );
    await waitForContent(h, "ses_one");
    // Marked disabled in the footer (which names the missing scopes as far as its width
    // allows); pressing it names the one it lacks.
    await waitForContent(h, "d changes✗");
    await pressKey(h, "d");
    await waitForContent(h, "changes is disabled: the key's effective scopes lack sessions:write");
    expect(server.seen.filter((r) => r.path.includes("/git"))).toEqual([]);
    await pressKey(h, "l");
    await waitForContent(h, "README.md  12 B");
    await pressKey(h, "down");
    await pressKey(h, "down");
    await pressKey(h, "enter");
    const file = await waitForContent(h, "2 │ second line");
    expect(file).toContain("1 │ # hello");
    expect(file).toContain("read-only");
  });
});
