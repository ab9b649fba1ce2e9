/**
 * The one reader of a session record's fields (the times and the optional fields the real
 * service documents), so the list, the fleet, the detail, the attention reasons, the CLI and
 * the overlap check decide them alike: `created_at`, `updated_at`, `github_repo`
 * (owner/repo), `last_prompt` ({status, started_at?, completed_at?, …}), `last_activity_at`,
 * `error_message`, `paused_at`, `prompt_count`, `total_cost_usd` and `agent_status` (working,
 * idle, awaiting_approval). `preview_url` and `template` are kept as sent; nothing reads them.
 *
 * None is required and a wrong type never rejects a record (the schema keeps whatever was
 * sent, and `--json` passes it through as it came): each reader here answers null for a value
 * it cannot read. Numbers may come as strings ("3", "0.42"); times are read by the one time
 * parser (`parseTime` in values.ts: ISO 8601 with or without a zone, epoch seconds or
 * milliseconds). The attention reasons, the list, the fleet, the detail and the headless
 * commands all read record fields here.
 */
import { formatCount } from "../text/format.js";
import { numberValue, parseTime, textValue } from "./values.js";

type RecordLike = object;

function field(s: RecordLike, key: string): unknown {
  return (s as Record<string, unknown>)[key];
}

/** A time field through the one parser; null when it is absent or cannot be read. */
function timeField(v: unknown): number | null {
  return parseTime(v) ?? null;
}

/**
 * The repository a session works on: the documented `github_repo` (owner/repo), else the
 * `repo` some servers (the reference service among them) send. As sent; null when neither.
 */
export function sessionRepo(s: RecordLike): string | null {
  return textValue(field(s, "github_repo")) ?? textValue(field(s, "repo"));
}

/**
 * owner/repo of a repository however it is written: `owner/repo`, an https or ssh URL, the
 * scp form `git@host:owner/repo.git`, or a path; `.git` and trailing slashes dropped. A value
 * with one segment comes back as it is (trimmed).
 */
export function ownerRepoOf(value: string): string {
  let s = value
    .trim()
    .replace(/\/+$/, "")
    .replace(/\.git$/i, "");
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/]+\/|[^@/\s]+@[^:/\s]+:)(.+)$/i.exec(s);
  if (m) s = m[1] as string;
  const parts = s.split("/").filter(Boolean);
  return parts.length >= 2 ? parts.slice(-2).join("/") : s;
}

/**
 * What the clone dialog offers first: the documented github_repo as its GitHub URL (as sent
 * when it is a URL already); nothing without one (a `repo` some servers send names what the
 * session works on, not what a clone should fetch).
 */
export function defaultCloneUrl(s: RecordLike | undefined): string {
  if (!s) return "";
  const gh = textValue(field(s, "github_repo"));
  if (gh === null) return "";
  return /^[\w.-]+\/[\w.-]+$/.test(gh) ? `https://github.com/${gh}.git` : gh;
}

/** When the session was created (`created_at`), ms since the epoch. */
export function createdAt(s: RecordLike): number | null {
  return timeField(field(s, "created_at"));
}

/** When the record last changed (`updated_at`), ms since the epoch. */
export function updatedAt(s: RecordLike): number | null {
  return timeField(field(s, "updated_at"));
}

/** When the session last did something (`last_activity_at`), ms since the epoch. */
export function lastActivityAt(s: RecordLike): number | null {
  return timeField(field(s, "last_activity_at"));
}

/** When the session was paused (`paused_at`), ms since the epoch. */
export function pausedAt(s: RecordLike): number | null {
  return timeField(field(s, "paused_at"));
}

export interface LastPrompt {
  /** As sent (running, completed, failed, …); null when the object has none. */
  status: string | null;
  startedAt: number | null;
  completedAt: number | null;
}

/** The record's `last_prompt`, when it is an object; its status and times read leniently. */
export function lastPrompt(s: RecordLike): LastPrompt | null {
  const v = field(s, "last_prompt");
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  return {
    status: textValue(o.status),
    startedAt: timeField(o.started_at),
    completedAt: timeField(o.completed_at),
  };
}

/** `prompt_count`: a whole number of prompts, 0 or more. */
export function promptCount(s: RecordLike): number | null {
  const n = numberValue(field(s, "prompt_count"));
  return n !== null && n >= 0 && Number.isInteger(n) ? n : null;
}

/** `total_cost_usd`: dollars spent, 0 or more. */
export function totalCostUsd(s: RecordLike): number | null {
  const n = numberValue(field(s, "total_cost_usd"));
  return n !== null && n >= 0 ? n : null;
}

/** `agent_status` (working, idle, awaiting_approval, or another word as sent). */
export function agentStatus(s: RecordLike): string | null {
  return textValue(field(s, "agent_status"));
}

/** `error_message`: why the session failed, as sent. */
export function errorMessageOf(s: RecordLike): string | null {
  return textValue(field(s, "error_message"));
}

/** Dollars as a person reads them: "$0.42", "$12.30", "<$0.01" below a cent, "$1,204". */
export function formatUsd(usd: number): string {
  if (usd >= 1000) return `$${formatCount(Math.round(usd))}`;
  if (usd > 0 && usd < 0.01) return "<$0.01";
  return `$${usd.toFixed(2)}`;
}

/** "1 prompt", "12 prompts". */
export function formatPrompts(n: number): string {
  return `${n} prompt${n === 1 ? "" : "s"}`;
}
