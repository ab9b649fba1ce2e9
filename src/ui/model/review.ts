import type { Session } from "../../protocol/resources.js";
import { browsableUrl } from "../../protocol/review.js";
import type { ActionOutcome } from "../../store/actionsStore.js";
import type { Changes, Hits, Listing, Loaded, Port } from "../../store/review/reviewStore.js";
import { sanitizeLine } from "../../text/sanitize.js";
import type { FilesOverlayState } from "./uiStore.js";

/**
 * What the review keys offer, decided from what the client already holds: the links of a
 * session, the files a rewind would revert, the branch a checkout fetches.
 */

/** One row of the links menu. */
export interface LinkItem {
  label: string;
  /** What the row shows (sanitized). */
  shown: string;
  /** The validated http(s) URL to open or copy; null for the id and for a port (asked first). */
  url: string | null;
  /** The text copied: the URL, or the id. */
  copy: string | null;
  /** A detected port: opened through the service's connect. */
  port?: number;
}

function recordField(record: Session | undefined, key: string): unknown {
  return (record as Record<string, unknown> | undefined)?.[key];
}

/** The pull request a session opened, as the last such action here said (or its record). */
function prUrl(
  record: Session | undefined,
  history: readonly ActionOutcome[],
  id: string,
): unknown {
  const own = recordField(record, "pr_url") ?? recordField(record, "pull_request_url");
  if (own !== undefined && own !== null) return own;
  return history.find((o) => o.sessionId === id && o.kind === "pr" && o.ok)?.result?.prUrl;
}

function urlItem(label: string, raw: unknown): LinkItem {
  const url = browsableUrl(raw);
  if (url) return { label, shown: url, url, copy: url };
  const said =
    raw === undefined || raw === null || raw === ""
      ? "none"
      : `not an http(s) URL: ${sanitizeLine(String(raw)).slice(0, 80)}`;
  return { label, shown: said, url: null, copy: null };
}

export function linkItems(
  sessionId: string,
  record: Session | undefined,
  history: readonly ActionOutcome[],
  ports: readonly Port[] | null,
): LinkItem[] {
  const items: LinkItem[] = [
    urlItem("preview", recordField(record, "preview_url")),
    urlItem("pull request", prUrl(record, history, sessionId)),
    urlItem("sandbox", recordField(record, "sandbox_url")),
    { label: "session id", shown: sanitizeLine(sessionId), url: null, copy: sessionId },
  ];
  for (const p of ports ?? []) {
    items.push({
      label: `port ${p.port}`,
      shown: p.process ? `${p.process} (opened through the service's connect)` : "detected",
      url: null,
      copy: null,
      port: p.port,
    });
  }
  return items;
}

/** Where the files a rewind reverts were learned. */
export type RewindSource = "stream" | "status" | "none";

/**
 * The files the last prompt changed, as far as the client knows: the stream's file changes
 * since that prompt began (all it saw, when the record does not say when), else what
 * `git status` says is changed in the workspace.
 */
export function rewindFiles(
  streamFiles: ReadonlyMap<string, { action: string; at: number }> | null,
  promptStartedAt: number | null,
  changes: Changes | null,
): { files: string[]; source: RewindSource } {
  const seen: string[] = [];
  for (const [path, f] of streamFiles ?? []) {
    if (promptStartedAt === null || f.at >= promptStartedAt) seen.push(`${path} (${f.action})`);
  }
  if (seen.length > 0) return { files: seen, source: "stream" };
  const status = changes?.status ?? [];
  if (status.length > 0) {
    return { files: status.map((s) => `${s.path} (${s.change})`), source: "status" };
  }
  return { files: [], source: "none" };
}

/** One row of the files browser: a folder's entry (or `..`), or a search's hit. */
export interface FilesItem {
  /** The path as sent, for listing or reading it. */
  path: string;
  dir: boolean;
  /** What the row shows (sanitized). */
  text: string;
  detail: string;
}

/** A folder of the browser's above `dir` ("/" at the top). */
export function parentOf(dir: string): string {
  const parts = dir.replace(/\/+$/, "").split("/");
  parts.pop();
  const up = parts.join("/");
  return up === "" ? "/" : up;
}

/** Whether the browser shows a search (typed and sent) rather than a folder. */
export function showsSearch(o: FilesOverlayState): boolean {
  return o.search !== null && !o.search.editing && o.search.text !== "";
}

/**
 * The rows the files browser lists, for the view and the keys alike: while it shows a search,
 * that search's hits and nothing else (none while it is read or when it failed, so Enter never
 * opens a folder's entry taken for a hit); else the folder's entries, `..` first below the top.
 */
export function filesItems(
  o: FilesOverlayState,
  st: { sessionId: string | null; listing: Loaded<Listing>; hits: Loaded<Hits> },
): FilesItem[] {
  if (st.sessionId !== o.sessionId) return [];
  if (showsSearch(o)) {
    return (st.hits.value?.results ?? []).map((r) => ({
      path: r.path,
      dir: false,
      text: r.shown,
      detail:
        r.matches.length === 0
          ? "name matches"
          : r.matches
              .slice(0, 2)
              .map((m) => `${m.line ?? "?"}: ${m.content.trim()}`)
              .join("  ·  "),
    }));
  }
  const l = st.listing.value;
  if (!l) return [];
  const up: FilesItem[] =
    o.dir !== "/" && o.dir !== ""
      ? [{ path: parentOf(o.dir), dir: true, text: "..", detail: "" }]
      : [];
  return [
    ...up,
    ...l.entries.map((e) => ({
      path: e.path,
      dir: e.type === "directory",
      text: `${e.name}${e.type === "directory" ? "/" : ""}`,
      detail: e.size === null || e.type === "directory" ? "" : `${e.size} B`,
    })),
  ];
}
