import type { Command } from "commander";
import { plainTextWarning } from "../../credentials/insecureFile.js";
import { insecureKeyPath } from "../../credentials/paths.js";
import { keyExpiresAt, PATHS } from "../../protocol/index.js";
import type { RateLimitInfo } from "../../protocol/rateLimit.js";
import { narrowedScopes } from "../../protocol/scopes.js";
import { formatExpiry, formatRateLimit, maskKey } from "../../text/format.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson, table } from "../output.js";

const EXPIRY_WARNING_MS = 7 * 24 * 3600 * 1000;

export interface WhoamiOptions {
  json?: boolean;
  /** Also name the routes in use (one list request finds where session routes live). */
  verbose?: boolean;
}

/** Where an organization header came from, in words. */
function orgFrom(from: string): string {
  return from === "key" ? "the key's own" : from;
}

/** `agent-sessions whoami`: the key's metadata, the caller and the effective scopes. */
export async function runWhoami(opts: WhoamiOptions, cmd: Command): Promise<void> {
  try {
    const ctx = await commandContext(cmd);
    // Other commands do not repeat it; whoami is where the key's storage is looked at.
    if (ctx.source === "insecure-file") {
      err(`warning: ${plainTextWarning(insecureKeyPath(ctx.profile))}`);
    }
    const [key, me] = await Promise.all([ctx.client.verify(), ctx.client.me()]);
    // The verbose view asks for one session so the routes it names are the ones that answer.
    let sessionsProblem: string | null = null;
    if (opts.verbose) {
      try {
        await ctx.client.listSessions({ limit: 1 });
      } catch (e) {
        sessionsProblem = e instanceof Error ? e.message : String(e);
      }
    }
    const routes = ctx.client.transport.routes.describe();
    const sent = ctx.client.transport.organization;
    const narrowed = narrowedScopes(key.scopes, key.effective_scopes);
    const expiresAt = keyExpiresAt(key);
    const expiresInMs = typeof expiresAt === "number" ? expiresAt - Date.now() : null;
    if (opts.json) {
      printJson({
        key_id: key.key_id,
        name: key.name,
        user_id: key.user_id,
        organization_id: key.organization_id,
        tenant_id: key.tenant_id,
        role: key.role,
        scopes: key.scopes,
        effective_scopes: key.effective_scopes,
        narrowed_scopes: narrowed,
        expires_at: key.expires_at,
        principal_id: me.principal_id,
        email: me.email ?? null,
        org_name: me.org_name ?? null,
        api_key_name: me.api_key_name ?? null,
        identity: me,
        organization_header: sent?.id ?? null,
        organization_header_from: sent ? orgFrom(sent.from) : null,
        ...(opts.verbose
          ? {
              routes: {
                sessions: routes.sessions,
                events: routes.events,
                integrations: routes.integrations,
                code_hosting: routes.codeHosting,
                verify: PATHS.verify,
                me: PATHS.me,
                ...(sessionsProblem !== null ? { sessions_error: sessionsProblem } : {}),
              },
            }
          : {}),
        rate_limit: rateLimitJson(ctx.client.rateLimit.info),
        key_masked: maskKey(ctx.apiKey),
        key_source: ctx.source,
        profile: ctx.profile,
        base_url: ctx.baseUrl,
      });
      return;
    }
    const s = (v: string | null | undefined) => sanitizeLine(v ?? "");
    const orgName = me.org_name ? ` "${s(me.org_name)}"` : "";
    const owner = key.organization_id
      ? `${s(key.organization_id)}${orgName} · role ${s(key.role ?? "unknown")}`
      : `personal key (tenant ${s(key.tenant_id)})`;
    const keyName = me.api_key_name && me.api_key_name !== key.name ? me.api_key_name : key.name;
    const rate = ctx.client.rateLimit.info;
    const expiry =
      key.expires_at === null ? "never" : `${formatExpiry(expiresAt)} (${s(key.expires_at)})`;
    const rows: string[][] = [
      ["principal", `${s(me.principal_id)} (tenant ${s(me.tenant_id)})`],
      ...(me.email ? [["email", s(me.email)]] : []),
      ["user", s(key.user_id)],
      ["organization", owner],
      ...(sent !== null
        ? [
            [
              "acting in",
              `${s(sent.id)} (X-Organization-Id${sent.from === "key" ? ", the key's own" : ""})`,
            ],
          ]
        : []),
      ["key", `"${s(keyName)}" ${maskKey(ctx.apiKey)} (id ${s(key.key_id)})`],
      ["key source", `${sourceLabel(ctx.source)}, profile ${s(ctx.profile)}`],
      ["base URL", s(ctx.baseUrl)],
      ["expires", expiry],
      ["effective scopes", key.effective_scopes.map(s).join(" ") || "(none)"],
      ["stored scopes", key.scopes.map(s).join(" ") || "(none)"],
    ];
    if (rate) rows.push(["rate limit", formatRateLimit(rate, Date.now())]);
    if (opts.verbose) {
      rows.push(["sessions at", s(routes.sessions)]);
      rows.push(["events at", s(routes.events)]);
      rows.push(["integrations at", s(routes.integrations)]);
      rows.push(["code hosting at", s(routes.codeHosting)]);
      rows.push(["key checked at", `${PATHS.verify}, ${PATHS.me}`]);
      if (sessionsProblem !== null)
        rows.push(["sessions", `could not list: ${s(sessionsProblem)}`]);
    }
    if (narrowed.length > 0) {
      rows.push([
        "narrowed by role",
        `${narrowed.map(s).join(" ")} (stored on the key, not allowed for role ${s(key.role ?? "")})`,
      ]);
    }
    out(table(["", ""], rows).split("\n").slice(1).join("\n"));
    if (expiresInMs !== null && expiresInMs <= EXPIRY_WARNING_MS) {
      err(`warning: this key ${formatExpiry(expiresAt)}; create a new one soon`);
    }
  } catch (e) {
    fail(e);
  }
}

/** The rate-limit figures in the snake_case every JSON this client writes uses; times in ISO. */
function rateLimitJson(info: RateLimitInfo | null): Record<string, unknown> | null {
  if (info === null) return null;
  return {
    limit: info.limit,
    remaining: info.remaining,
    reset_seconds: info.resetSeconds,
    observed_at: new Date(info.observedAt).toISOString(),
  };
}

function sourceLabel(source: string): string {
  switch (source) {
    case "env":
      return "AGENT_SESSIONS_API_KEY";
    case "keychain":
      return "OS keychain";
    case "insecure-file":
      return "plain-text file (insecure storage)";
    default:
      return source;
  }
}
