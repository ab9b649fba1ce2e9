import type { ServerResponse } from "node:http";
import {
  fileTree,
  listFiles,
  readFile,
  searchFiles,
  workspaceDiff,
  workspaceLog,
  workspaceStatus,
} from "../git/workspaceReview.js";
import type { SimSession } from "../sessionTable.js";
import { HttpError } from "./httpError.js";
import { sendJson } from "./respond.js";
import {
  authorize,
  type Call,
  type HandlerContext,
  type Operation,
  type Route,
  SEGMENT,
  sessionParam,
} from "./routeKit.js";

/**
 * The routes of reviewing a session and taking its work home: files, file, search, workspace
 * state, prompt rewind and the v2 connect (the real service's documents, files-*.mdx,
 * workspace-state.mdx, prompt-rewind.mdx, v2-connect.mdx), and the git review operations
 * status, diff and log that the git endpoints hand here (reviewOperation).
 *
 * requestHandler.ts spreads REVIEW_ROUTES into its routes; the checks come from routeKit.ts.
 */

/** The git operations answered here rather than by the workspaces' actions. */
export const REVIEW_OPERATIONS = ["status", "diff", "log"] as const;
export type ReviewOperation = (typeof REVIEW_OPERATIONS)[number];

export function isReviewOperation(op: unknown): op is ReviewOperation {
  return (REVIEW_OPERATIONS as readonly unknown[]).includes(op);
}

/** The documented refusal of work in a sandbox that is not running. */
function notPaused(s: SimSession): void {
  if (s.record.state === "paused") {
    throw HttpError.detail(400, "Session is not running (state: paused)");
  }
}

/** git status, diff or log in the session's workspace (authorized by the git route). */
export async function reviewOperation(
  ctx: HandlerContext,
  res: ServerResponse,
  s: SimSession,
  op: ReviewOperation,
): Promise<void> {
  notPaused(s);
  const read = { status: workspaceStatus, diff: workspaceDiff, log: workspaceLog }[op];
  sendJson(res, 200, await ctx.git.review(s.record.id, read));
}

/** A port number from the query, or the documented validation error. */
function portParam(query: URLSearchParams): number {
  const raw = query.get("port") ?? "";
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= 65535))
    throw HttpError.invalid("port", "port must be an integer from 1 to 65535", 422);
  return n;
}

/** What the sandbox runs, simulated from its record: the same answer for the same session. */
function workspaceState(ctx: HandlerContext, s: SimSession) {
  const r = s.record;
  let hash = 0;
  for (const ch of r.id) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const ports: { port: number; process: string }[] = [];
  const processes: { pid: number; command: string }[] = [];
  if (r.state !== "paused" && r.preview_url !== null) {
    ports.push({ port: 3000, process: "node" });
    processes.push({ pid: 1000 + (hash % 9000), command: "npm run dev" });
    if (hash % 2 === 0) {
      ports.push({ port: 5432, process: "postgres" });
      processes.push({ pid: 1000 + ((hash >>> 8) % 9000), command: "postgres" });
    }
  }
  if (r.agent_status === "working") processes.push({ pid: 42, command: `${r.agent} (agent)` });
  return {
    detected_ports: ports,
    running_processes: processes,
    file_tree: fileTree(ctx.git.workspaceDirOf(r.id)),
  };
}

/** A preview host for a port of a session, on a reserved domain (nothing is served there). */
function previewUrl(sessionId: string, port: number): string {
  return `https://${port}-${sessionId.replace("_", "-")}.preview.invalid`;
}

/** The session of a call whose key holds the scope; a paused sandbox is refused. */
function running(ctx: HandlerContext, call: Call, op: Operation): SimSession {
  authorize(ctx, call, op);
  const s = sessionParam(ctx, call);
  notPaused(s);
  return s;
}

function flag(call: Call, name: string): boolean {
  return /^(?:true|1|yes|on)$/i.test(call.query.get(name) ?? "");
}

/**
 * `GET /api/sessions/{id}/{path}` on a running session's workspace (its key holding `op`),
 * answered with what `read` makes of the workspace's folder (null before anything is cloned)
 * and the call's query.
 */
function workspaceRead(
  path: string,
  op: Operation,
  read: (dir: string | null, call: Call) => unknown,
): Route {
  return {
    method: "GET",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/${path}$`),
    handle: (ctx, call) => {
      const s = running(ctx, call, op);
      sendJson(call.res, 200, read(ctx.git.workspaceDirOf(s.record.id), call));
    },
  };
}

export const REVIEW_ROUTES: Route[] = [
  workspaceRead("files", "listFiles", (dir, call) =>
    listFiles(dir, call.query.get("path") ?? "/", flag(call, "recursive")),
  ),
  workspaceRead("file", "readFile", (dir, call) => readFile(dir, call.query.get("path") ?? "")),
  workspaceRead("files/search", "searchFiles", (dir, call) =>
    searchFiles(dir, call.query.get("query") ?? "", call.query.get("path") ?? "/"),
  ),
  {
    method: "GET",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/workspace-state$`),
    handle: (ctx, call) => {
      authorize(ctx, call, "workspaceState");
      sendJson(call.res, 200, workspaceState(ctx, sessionParam(ctx, call)));
    },
  },
  {
    method: "POST",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/prompt/rewind$`),
    handle: async (ctx, call) => {
      const s = running(ctx, call, "rewindPrompt");
      const reverted = await ctx.git.rewind(s.record.id);
      sendJson(call.res, 200, {
        session_id: s.record.id,
        rewound: reverted.length > 0,
        reverted_files: reverted.map((p) => `/${p}`),
      });
    },
  },
  {
    method: "POST",
    pattern: new RegExp(`^/api/v2/sessions/${SEGMENT}/connect$`),
    handle: (ctx, call) => {
      authorize(ctx, call, "connectPort");
      const s = sessionParam(ctx, call);
      const port = portParam(call.query);
      // Documented: a paused sandbox is resumed (its errors, 410 for an ended one, as is).
      if (s.record.state === "paused") ctx.actions.lifecycle(s, "resume");
      if (s.record.state === "destroyed" || s.record.state === "destroying") {
        throw HttpError.detail(410, "Sandbox has expired or is in an invalid state");
      }
      const listening = workspaceState(ctx, s).detected_ports.some((p) => p.port === port);
      if (!listening) {
        throw HttpError.detail(502, `Could not resolve preview: nothing listens on port ${port}`);
      }
      const url = previewUrl(s.record.id, port);
      s.record.preview_url = url;
      sendJson(call.res, 200, { preview_url: url, port });
    },
  },
];
