import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import { EXIT, MissingScopeError } from "../../client/errors.js";
import { type IntegrationsReport, type Part, readIntegrations } from "../../client/integrations.js";
import type { LinearUpdate } from "../../protocol/integrations.js";
import { configureRefusal } from "../../store/integrations/configure.js";
import {
  appLines,
  chatHealthIssues,
  chatLine,
  integrationWarnings,
  issueTrackerLine,
  PART_TITLES,
  partProblem,
  tokenLine,
  updatedLine,
} from "../../store/integrations/integrationsText.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson, stdoutClosed } from "../output.js";

export interface IntegrationsOptions {
  json?: boolean;
}

export interface LinearSetOptions {
  rateLimit?: number;
  defaultRepo?: string;
  json?: boolean;
}

/** A part as JSON: its state, and its data or what went wrong. */
function partJson<T>(p: Part<T>, data: (d: T) => unknown): Record<string, unknown> {
  switch (p.state) {
    case "ok":
      return { state: "ok", ...(data(p.data) as Record<string, unknown>) };
    case "absent":
      return { state: "absent", message: p.message };
    case "forbidden":
      return { state: "forbidden", message: p.message, required_scope: p.scope, hint: p.hint };
    case "error":
      return { state: "error", message: p.message, hint: p.hint, code: p.code };
  }
}

export function reportJson(r: IntegrationsReport): Record<string, unknown> {
  return {
    code_hosting_app: partJson(r.app, (a) => ({
      installations: a.installations.map((g) => ({
        ...g.installation,
        repos: g.repos,
        total_count: g.total,
        cut: g.cut,
      })),
      repos_error: a.reposError,
    })),
    user_token: partJson(r.token, (t) => ({ ...t })),
    issue_tracker: partJson(r.issueTracker, (list) => ({ integrations: list })),
    chat_tool: partJson(r.chat, (c) => ({ ...c })),
    warnings: integrationWarnings(r),
  };
}

/** The exit code: a missing scope (4), else a failed part (its code), else a cut list (7). */
function exitCodeOf(r: IntegrationsReport): number {
  const parts = [r.app, r.token, r.issueTracker, r.chat] as Part<unknown>[];
  if (parts.some((p) => p.state === "forbidden")) return EXIT.missingScope;
  const failed = parts.find((p) => p.state === "error");
  if (failed?.state === "error") {
    return failed.code === "rate_limited"
      ? EXIT.rateLimited
      : failed.code === "network"
        ? EXIT.network
        : failed.code === "invalid_key"
          ? EXIT.invalidKey
          : EXIT.error;
  }
  if (r.app.state === "ok" && r.app.data.installations.some((g) => g.cut !== null)) {
    return EXIT.incomplete;
  }
  return EXIT.ok;
}

/**
 * The parts that could not be read, as every failing command says it: one `error:` line
 * naming them and why, one `hint:` line (the first one's), whatever the number of parts.
 */
function sayUnread(r: IntegrationsReport): void {
  const unread = (Object.entries(r) as [keyof IntegrationsReport, Part<unknown>][]).flatMap(
    ([key, p]) =>
      p.state === "forbidden" || p.state === "error"
        ? [{ title: PART_TITLES[key], message: p.message, hint: p.hint }]
        : [],
  );
  // The reader went away (`| head`): ended quietly, as every command is.
  if (unread.length === 0 || stdoutClosed.aborted) return;
  const why = [...new Set(unread.map((u) => sanitizeLine(u.message)))].join("; ");
  err(`error: could not read ${unread.map((u) => u.title).join(", ")}: ${why}`);
  const hint = unread.find((u) => u.hint)?.hint;
  if (hint) err(`hint: ${sanitizeLine(hint)}`);
}

/** `agent-sessions integrations`: every part, each on its own, one failing never hiding another. */
export async function runIntegrations(opts: IntegrationsOptions, cmd: Command): Promise<void> {
  let client: ApiClient | null = null;
  try {
    const ctx = await commandContext(cmd);
    client = ctx.client;
    const r = await readIntegrations(ctx.client);
    if (opts.json) {
      printJson(reportJson(r));
    } else {
      const section = (key: keyof IntegrationsReport, lines: string[]) => {
        const problem = partProblem(r[key] as Part<unknown>);
        if (problem !== null) {
          out(`${PART_TITLES[key]}: ${problem}`);
          return;
        }
        const [first, ...rest] = lines;
        out(`${PART_TITLES[key]}: ${first ?? ""}`);
        for (const l of rest) out(`  ${l}`);
      };
      section(
        "app",
        r.app.state === "ok"
          ? [`${r.app.data.installations.length} installation(s)`, ...appLines(r.app.data)]
          : [],
      );
      section("token", r.token.state === "ok" ? [tokenLine(r.token.data)] : []);
      section(
        "issueTracker",
        r.issueTracker.state === "ok"
          ? r.issueTracker.data.length === 0
            ? ["none set up"]
            : r.issueTracker.data.length === 1
              ? [issueTrackerLine(r.issueTracker.data[0] as (typeof r.issueTracker.data)[0])]
              : [`${r.issueTracker.data.length} bots`, ...r.issueTracker.data.map(issueTrackerLine)]
          : [],
      );
      section(
        "chat",
        r.chat.state === "ok"
          ? [
              chatLine(r.chat.data),
              ...chatHealthIssues(r.chat.data).map((i) => `service account issue: ${i}`),
            ]
          : [],
      );
    }
    for (const w of integrationWarnings(r)) err(`warning: ${w}`);
    sayUnread(r);
    if (r.app.state === "ok") {
      for (const g of r.app.data.installations) {
        if (g.cut) {
          err(
            `warning: the repositories of ${sanitizeLine(g.installation.account_login ?? g.installation.id)} are incomplete: ${sanitizeLine(g.cut)}`,
          );
        }
      }
    }
    process.exitCode = exitCodeOf(r);
  } catch (e) {
    fail(e);
  } finally {
    await client?.close();
  }
}

/**
 * `agent-sessions integrations linear set`: a partial update of the issue tracker. The key's
 * role and scopes are checked first (one verify), so a member learns why not before anything
 * is sent; the service stays the authority and its 403 is shown whole.
 */
export async function runLinearSet(opts: LinearSetOptions, cmd: Command): Promise<void> {
  let client: ApiClient | null = null;
  try {
    const update: LinearUpdate = {};
    if (opts.rateLimit !== undefined) update.rate_limit_per_hour = opts.rateLimit;
    if (opts.defaultRepo !== undefined) update.default_github_repo = opts.defaultRepo;
    if (Object.keys(update).length === 0) {
      err("error: nothing to change: give --rate-limit N (1–100) or --default-repo owner/repo");
      process.exitCode = EXIT.usage;
      return;
    }
    const ctx = await commandContext(cmd);
    client = ctx.client;
    const key = await ctx.client.verify();
    const refusal = configureRefusal(key);
    if (refusal !== null) throw new MissingScopeError(refusal.message, refusal.scope, refusal.hint);
    const answer = await ctx.client.updateLinearIntegration(update);
    if (opts.json) {
      printJson(answer);
      return;
    }
    out(updatedLine(answer));
  } catch (e) {
    fail(e);
  } finally {
    await client?.close();
  }
}
