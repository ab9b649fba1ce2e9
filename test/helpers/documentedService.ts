import type { IncomingMessage, ServerResponse } from "node:http";
import {
  ANNOUNCED_LIMITS,
  json,
  type ScriptedServer,
  startScriptedServer,
} from "./scriptedHttpServer.js";

/**
 * A small service following the real one's docs, for what the reference service does not do:
 * a push its code hosting app cannot make. Its API lives under `/api/cloud` (its
 * `/api/sessions…` and `/api/github-app/…` are the web dashboard's: 401 to a bearer key) or
 * under `/api`. It lists one running session on acme/other, serves git only at the
 * documented `…/git` (the interface's `…/git/operation` is not served) and refuses the push:
 * its code hosting app reaches acme/api, not acme/other.
 */

export const KEY = "sk_test_mount_0123456789abcdef0123";
export const SESSION = "ses_push1";
export const CONFIGURE_ACME = "https://github.com/organizations/acme/settings/installations/7";

const SCOPES = ["sessions:read", "sessions:write", "sessions:prompt", "integrations:read"];
const INSTALLATION = {
  id: "inst_acme",
  installation_id: 7,
  account_type: "Organization",
  account_login: "acme",
  configure_url: CONFIGURE_ACME,
  is_personal: false,
  created_at: "2026-04-15T10:00:00Z",
};
const RECORD = {
  id: SESSION,
  name: "billing",
  state: "running",
  agent: "claude-code",
  github_repo: "acme/other",
  branch: "main",
  created_at: "2026-04-15T10:00:00Z",
  updated_at: "2026-04-15T10:00:00Z",
};

/** What verify and me answer for an owner's key with these scopes, by "METHOD path". */
export function identityRoutes(scopes: readonly string[]): Record<string, unknown> {
  return {
    "GET /api/cloud/auth/verify": {
      valid: true,
      key_id: "key_1",
      name: "ci",
      user_id: "usr_1",
      organization_id: null,
      role: "owner",
      scopes,
      effective_scopes: scopes,
    },
    "GET /api/v1/me": { tenant_id: "usr_1", principal_id: "usr_1", scopes },
  };
}

export interface DocumentedServiceOptions {
  /** The session's approvals list (the session then awaits approval); none by default. */
  approvals?: readonly Record<string, unknown>[];
}

export async function documentedService(
  mount: "cloud" | "interface",
  opts: DocumentedServiceOptions = {},
): Promise<ScriptedServer> {
  const s = await startScriptedServer();
  const record = opts.approvals?.length ? { ...RECORD, agent_status: "awaiting_approval" } : RECORD;
  const base = mount === "cloud" ? "/api/cloud" : "/api";
  const routes: Record<string, unknown> = {
    ...identityRoutes(SCOPES),
    [`GET ${base}/sessions`]: { sessions: [record], total: 1, has_more: false },
    [`GET ${base}/sessions/${SESSION}`]: record,
    [`GET ${base}/sessions/${SESSION}/approvals`]: { approvals: opts.approvals ?? [] },
    [`POST ${base}/sessions/${SESSION}/git`]: {
      success: false,
      operation: "push",
      output: "remote: Permission to acme/other.git denied to runtm-app[bot].",
      error: "Permission to acme/other denied",
    },
    [`GET ${base}/github-app/installations`]: { installations: [INSTALLATION], total: 1 },
    [`GET ${base}/github-app/repos`]: {
      installations: [
        {
          installation: INSTALLATION,
          repos: [{ full_name: "acme/api", private: true, default_branch: "main" }],
          total_count: 1,
        },
      ],
    },
  };
  s.fallback((req: IncomingMessage, res: ServerResponse, body: string, n: number) => {
    const path = (req.url ?? "").split("?")[0] as string;
    const key = `${req.method} ${path}`;
    if (key in routes) return json(200, routes[key], ANNOUNCED_LIMITS)(req, res, body, n);
    if (mount === "cloud" && /^\/api\/(sessions|github-app)(\/|$)/.test(path)) {
      const dashboard = { ...ANNOUNCED_LIMITS, "www-authenticate": "Cookie" };
      return json(401, { detail: "Not authenticated" }, dashboard)(req, res, body, n);
    }
    return json(404, { detail: "Not Found" }, ANNOUNCED_LIMITS)(req, res, body, n);
  });
  return s;
}

export interface DocumentedFleetOptions {
  /** Every session the list pages through, in the list's order. */
  sessions: readonly Record<string, unknown>[];
  /** Approvals lists by session id; every other session's is empty. */
  approvals?: Readonly<Record<string, readonly object[]>>;
  /** Destroyed and error sessions listed only with include_destroyed=true, as the real service does. */
  hideDestroyed?: boolean;
  /** The offset answered for the one asked (a server that repeats a page); default the same. */
  offset?: (asked: number) => number;
}

/**
 * A service whose session list follows the documented shapes: offset pages of at most 20
 * (`total`, `has_more`), each session's approvals list, and the real limits announced on
 * every answer (100 a minute, a burst of 20 counted down). 404 for anything else.
 */
export async function documentedFleet(opts: DocumentedFleetOptions): Promise<ScriptedServer> {
  const s = await startScriptedServer();
  let remaining = 20;
  const limits = () => ({
    "x-ratelimit-limit": "100",
    "x-ratelimit-remaining": String(Math.max(0, --remaining)),
    "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 60),
  });
  s.fallback((req, res, body, n) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/api/sessions") {
      const all = url.searchParams.get("include_destroyed") === "true";
      const listed =
        opts.hideDestroyed && !all
          ? opts.sessions.filter((x) => x.state !== "error" && x.state !== "destroyed")
          : opts.sessions;
      const limit = Math.min(20, Number(url.searchParams.get("limit") ?? 20));
      const asked = Number(url.searchParams.get("offset") ?? 0);
      const offset = opts.offset ? opts.offset(asked) : asked;
      const page = listed.slice(offset, offset + limit);
      const more = offset + limit < listed.length;
      const answer = { sessions: page, total: listed.length, has_more: more };
      return json(200, answer, limits())(req, res, body, n);
    }
    const approvals = /^\/api\/sessions\/([^/]+)\/approvals$/.exec(url.pathname);
    if (approvals) {
      return json(200, opts.approvals?.[approvals[1] as string] ?? [], limits())(req, res, body, n);
    }
    return json(404, { detail: "Not Found" }, limits())(req, res, body, n);
  });
  return s;
}
