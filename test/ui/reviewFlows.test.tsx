import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localHome } from "../../src/cli/tui/localHome.js";
import { type HostileRoutes, sendJson } from "../helpers/hostileServer.js";
import { tempFolder } from "../helpers/stopAfterTest.js";
import {
  type AppHarness,
  fixedNow,
  type HostileApp,
  mountOnHostile,
  mountOnReference,
  pressKey,
  type UiFixture,
  type UiHarness,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * The review flows a user drives from the UI to the service and back:
 * - the files browser's search (`GET …/files/search`) on the reference service's real
 *   workspace: hits by name and by content drawn, Enter opens the hit, and a server's failure
 *   said in plain words on a loopback server;
 * - taking the changes home as a checkout of the branch the session pushed, from the
 *   confirmation (Tab offers it), into a real local clone: what to do before the push, the
 *   local branch after it;
 * - a detected port opened through `connect` from the links menu: the request carries the
 *   port, the URL the service answers is opened (or printed), a refusal says why.
 */

afterEach(unmountReference);

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

/** An active session of the seeded service with demo/app cloned into its workspace. */
async function clonedSession(f: UiFixture): Promise<{ id: string; ws: string }> {
  const id = f.server.sessions().find((r) => r.state === "active")?.id;
  if (!id) throw new Error("no active session in the seed");
  await f.client.git(id, { kind: "clone", repoUrl: "demo/app" });
  await f.services.sessions.getState().load();
  return { id, ws: join(f.server.dataDir, "workspaces", id) };
}

async function selectRow(h: AppHarness, id: string): Promise<void> {
  await waitForContent(h, id);
  await pressKey(h, "/");
  for (const c of id) await pressKey(h, c);
  await pressKey(h, "enter");
  await waitForContent(h, "1 shown of");
}

async function type(h: UiHarness, text: string): Promise<void> {
  for (const c of text) await pressKey(h, c);
}

/** A UI on a loopback server of the test's own routes, opening URLs into `opened`. */
function mountLoopback(
  routes: HostileRoutes,
  opener: (url: string) => Promise<{ opened: boolean; error?: string }>,
): Promise<HostileApp> {
  return mountOnHostile(routes, { columns: 140, rows: 32 }, { services: { openUrl: opener } });
}

/** The seeded reference service the flows on real workspaces run on. */
const SEEDED = { seed: 32, clock: "manual", sessionCount: 3 } as const;

describe("the files browser's search", () => {
  it("finds by name and by content on the reference service, and Enter opens a hit", async () => {
    let id = "";
    const { h: app } = await mountOnReference(
      { columns: 140, rows: 36 },
      {
        server: SEEDED,
        props: { now: fixedNow },
        before: async (fx) => {
          const cloned = await clonedSession(fx);
          id = cloned.id;
          mkdirSync(join(cloned.ws, "notes"), { recursive: true });
          writeFileSync(
            join(cloned.ws, "notes", "plan.txt"),
            "first line\nthe Quokka hides here\nlast line\n",
          );
          writeFileSync(join(cloned.ws, "quokka.md"), "# named after it\n");
        },
      },
    );
    await selectRow(app, id);
    await pressKey(app, "l");
    await waitForContent(app, "README.md");
    await pressKey(app, "/");
    await type(app, "quokka");
    await waitForContent(app, "/quokka▏ (Enter searches names and contents)");
    await pressKey(app, "enter");
    const hits = await waitForContent(app, "2 matches");
    expect(hits).toContain(`Files of ${id}: search "quokka"`);
    // The content hit with its line number and line; the name hit said as such.
    expect(hits).toMatch(/notes\/plan\.txt {2}2: the Quokka hides here/);
    expect(hits).toMatch(/quokka\.md {2}name matches/);
    // Enter on the hit under the cursor opens it read-only with line numbers.
    const cursorOn = (f: string) => f.split("\n").find((l) => l.includes("› "));
    expect(cursorOn(hits)).toMatch(/\/quokka\.md {2}name matches/);
    await pressKey(app, "enter");
    const named = await waitForContent(app, "1 │ # named after it");
    expect(named).toContain("read-only");
    await pressKey(app, "escape");
    await pressKey(app, "down");
    await waitForContent(app, (f) => /plan\.txt/.test(cursorOn(f) ?? ""));
    await pressKey(app, "enter");
    const file = await waitForContent(app, "2 │ the Quokka hides here");
    expect(file).toContain("1 │ first line");
    // Esc goes back to the hits, Esc again drops the search and shows the folder.
    await pressKey(app, "escape");
    await waitForContent(app, "2 matches");
    await pressKey(app, "escape");
    await waitForContent(app, (f) => f.includes(`Files of ${id}: /`) && f.includes("entries"));
  }, 60_000);

  it("says plainly when the service fails the search", async () => {
    const { h, server } = await mountLoopback(
      {
        sessions: (req: IncomingMessage, res: ServerResponse) => {
          const path = new URL(req.url ?? "", "http://x").pathname;
          if (path.endsWith("/files/search"))
            sendJson(res, 500, { detail: "search index unavailable" });
          else if (path.endsWith("/files"))
            sendJson(res, 200, {
              files: [{ name: "README.md", path: "/README.md", type: "file", size: 12 }],
            });
          else if (path === "/api/sessions/ses_one")
            sendJson(res, 200, { id: "ses_one", state: "active" });
          else if (path === "/api/sessions")
            sendJson(res, 200, { sessions: [{ id: "ses_one", state: "active" }], has_more: false });
          else sendJson(res, 404, { detail: "not found" });
        },
      },
      async () => ({ opened: true }),
    );
    await waitForContent(h, "ses_one");
    await pressKey(h, "l");
    await waitForContent(h, "README.md  12 B");
    await pressKey(h, "/");
    await type(h, "anything");
    await pressKey(h, "enter");
    const frame = await waitForContent(h, /failed: .*search index unavailable/);
    expect(frame).toContain('search "anything"');
    expect(server.seen.filter((r) => r.path.includes("/files/search")).map((r) => r.path)).toEqual([
      "/api/sessions/ses_one/files/search?query=anything",
    ]);
    // Nothing is listed as a hit, and Enter opens nothing.
    expect(frame).not.toContain("README.md");
    await pressKey(h, "enter");
    const after = h.frame();
    expect(after).toContain('search "anything"');
    expect(after).not.toContain("read-only");
    // Esc drops the search and the folder is back; no file was asked for meanwhile.
    await pressKey(h, "escape");
    await waitForContent(h, "README.md  12 B");
    expect(server.seen.filter((r) => /\/file\?/.test(r.path))).toEqual([]);
  });
});

describe("checkout from the take-home confirmation", () => {
  it("says what to do before the push, and creates the local branch after it", async () => {
    let id = "";
    let repo = "";
    // Wide enough for the outcome and its hint on the message line.
    const { fx, h: app } = await mountOnReference(
      { columns: 220, rows: 36 },
      {
        server: SEEDED,
        props: { now: fixedNow },
        before: async (f: UiFixture) => {
          const cloned = await clonedSession(f);
          id = cloned.id;
          writeFileSync(join(cloned.ws, "CHECKED_OUT.md"), "from the session\n");
          await f.client.git(id, { kind: "branch", name: "agent/ui-checkout" });
          await f.services.sessions.getState().refreshSession(id);
          const home = tempFolder("as-review-flows-");
          repo = join(home, "app");
          git(home, "clone", "-q", join(f.server.dataDir, "repos", "demo", "app.git"), repo);
          if (f.services.review) f.services.review.home = localHome(repo);
        },
      },
    );
    await selectRow(app, id);

    // The workspace has a diff, so applying is offered first; Tab offers the checkout.
    await pressKey(app, "H");
    const ask = await waitForContent(app, `${repo} (on main)`, 15_000);
    expect(ask).toContain("[Tab] check out its branch instead");
    await pressKey(app, "tab");
    const checkout = await waitForContent(
      app,
      "Fetches the branch the session pushed, agent/ui-checkout, into a local",
    );
    expect(checkout).toContain("[y] check out");
    await pressKey(app, "y");
    await waitForContent(
      app,
      "origin has no branch agent/ui-checkout: the session has not pushed it yet · Push it from the session first (agent-sessions git push SESSION), then run checkout again.",
      15_000,
    );
    expect(git(repo, "branch", "--list", "agent/ui-checkout")).toBe("");

    // Pushed: the same confirmation creates the local branch from it and switches to it.
    const pushed = await fx.client.git(id, { kind: "push" });
    await pressKey(app, "H");
    await waitForContent(app, "[Tab] check out its branch instead", 15_000);
    await pressKey(app, "tab");
    await waitForContent(app, "[y] check out");
    await pressKey(app, "y");
    await waitForContent(
      app,
      `created local branch agent/ui-checkout from origin (${pushed.sha?.slice(0, 12)}), checked out`,
      15_000,
    );
    expect(git(repo, "branch", "--show-current").trim()).toBe("agent/ui-checkout");
    expect(git(repo, "rev-parse", "agent/ui-checkout").trim()).toBe(pushed.sha);
    expect(readFileSync(join(repo, "CHECKED_OUT.md"), "utf8")).toBe("from the session\n");
  }, 60_000);
});

describe("a detected port through connect", () => {
  /** Routes with one detected port; connect answered by `connect`. */
  function portRoutes(connect: (port: string | null, res: ServerResponse) => void): HostileRoutes {
    return {
      sessions: (req, res) => {
        const path = new URL(req.url ?? "", "http://x").pathname;
        if (path.endsWith("/workspace-state"))
          sendJson(res, 200, { detected_ports: [{ port: 5173, process: "vite" }] });
        else if (path === "/api/sessions/ses_one")
          sendJson(res, 200, { id: "ses_one", state: "active" });
        else if (path === "/api/sessions")
          sendJson(res, 200, { sessions: [{ id: "ses_one", state: "active" }], has_more: false });
        else sendJson(res, 404, { detail: "not found" });
      },
      other: (req, res) => {
        const u = new URL(req.url ?? "", "http://x");
        if (req.method === "POST" && u.pathname === "/api/v2/sessions/ses_one/connect")
          connect(u.searchParams.get("port"), res);
        else sendJson(res, 404, { detail: "not found" });
      },
    };
  }

  async function toPort(h: UiHarness): Promise<void> {
    await waitForContent(h, "ses_one");
    await pressKey(h, "u");
    await waitForContent(h, "port 5173");
    // preview, pull request, sandbox, session id, then the port.
    for (let i = 0; i < 4; i++) await pressKey(h, "down");
    await waitForContent(h, /› port 5173/);
  }

  it("asks connect with the port and opens the URL it answers (printed without an opener)", async () => {
    const opened: string[] = [];
    let canOpen = true;
    const { h, server } = await mountLoopback(
      portRoutes((port, res) =>
        sendJson(res, 200, { preview_url: `https://${port}-ses-one.preview.example.com/` }),
      ),
      async (url) => {
        if (!canOpen) return { opened: false, error: "no browser opener (xdg-open or open) here" };
        opened.push(url);
        return { opened: true };
      },
    );
    await toPort(h);
    await pressKey(h, "enter");
    await waitForContent(h, "Opened https://5173-ses-one.preview.example.com/");
    expect(opened).toEqual(["https://5173-ses-one.preview.example.com/"]);
    const asked = server.seen.filter((r) => r.path.includes("/connect"));
    expect(asked.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/api/v2/sessions/ses_one/connect?port=5173"],
    ]);
    // Where nothing opens a browser, the URL is printed for the user to open.
    canOpen = false;
    await pressKey(h, "enter");
    await waitForContent(
      h,
      "no browser opener (xdg-open or open) here: https://5173-ses-one.preview.example.com/",
    );
    expect(opened).toHaveLength(1);
  });

  it("says why when the service refuses the connect, and opens nothing", async () => {
    const opened: string[] = [];
    const { h } = await mountLoopback(
      portRoutes((_port, res) => sendJson(res, 409, { detail: "port 5173 is not listening" })),
      async (url) => {
        opened.push(url);
        return { opened: true };
      },
    );
    await toPort(h);
    await pressKey(h, "enter");
    await waitForContent(h, /Connect failed: .*port 5173 is not listening/);
    expect(opened).toEqual([]);
  });

  it("refuses a URL that is not http(s), and opens nothing", async () => {
    const opened: string[] = [];
    const { h } = await mountLoopback(
      portRoutes((_port, res) => sendJson(res, 200, { preview_url: "file:///etc/passwd" })),
      async (url) => {
        opened.push(url);
        return { opened: true };
      },
    );
    await toPort(h);
    await pressKey(h, "enter");
    await waitForContent(h, "The service's URL for port 5173 is not an http(s) URL");
    expect(opened).toEqual([]);
  });
});
