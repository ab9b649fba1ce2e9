import { createStore, type StoreApi } from "zustand/vanilla";
import type { Session } from "../../protocol/resources.js";
import { ownerRepoOf, sessionRepo } from "../../protocol/sessionRecord.js";
import type { SessionsStore } from "../sessionsStore.js";
import type { ActivityTracker } from "./activity.js";

/**
 * Two sessions on the same repository changing the same path are about to conflict: both
 * rows and panes say so ("also changed by ses_b"), and a push or pull request lists the
 * paths and sessions before it goes. The repository is what the record says (the documented
 * `github_repo`, else `repo`, `repository`, `repo_url`; a record with none is not compared);
 * the paths are the file changes their streams brought.
 */

export interface Overlap {
  path: string;
  /** The other sessions that changed it, by id. */
  others: readonly string[];
}

export type OverlapMap = ReadonlyMap<string, readonly Overlap[]>;

/** The documented github_repo first (sessionRepo reads it, then repo), then other names. */
const OTHER_REPO_FIELDS = ["repository", "repo_url", "repository_url"] as const;

/**
 * The repository a record names, normalised so two spellings of one compare equal: owner/repo
 * (a URL, an ssh form and `owner/repo.git` all become it), lower case.
 */
export function repoOf(s: Session): string | null {
  const r = s as Record<string, unknown>;
  let named = sessionRepo(s);
  for (const f of OTHER_REPO_FIELDS) {
    if (named !== null) break;
    const v = r[f];
    if (typeof v === "string" && v.trim() !== "") named = v;
  }
  return named === null ? null : ownerRepoOf(named).toLowerCase();
}

export function findOverlaps(
  sessions: readonly Session[],
  filesOf: (sessionId: string) => ReadonlyMap<string, unknown> | null,
): OverlapMap {
  const byRepo = new Map<string, string[]>();
  for (const s of sessions) {
    const repo = repoOf(s);
    const files = filesOf(s.session_id);
    if (repo === null || !files || files.size === 0) continue;
    const ids = byRepo.get(repo) ?? [];
    ids.push(s.session_id);
    byRepo.set(repo, ids);
  }
  const out = new Map<string, Overlap[]>();
  for (const ids of byRepo.values()) {
    if (ids.length < 2) continue;
    const byPath = new Map<string, string[]>();
    for (const id of ids) {
      for (const path of filesOf(id)?.keys() ?? []) {
        const who = byPath.get(path) ?? [];
        who.push(id);
        byPath.set(path, who);
      }
    }
    for (const [path, who] of byPath) {
      if (who.length < 2) continue;
      for (const id of who) {
        const list = out.get(id) ?? [];
        list.push({ path, others: who.filter((x) => x !== id) });
        out.set(id, list);
      }
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.path.localeCompare(b.path));
  return out;
}

/** "also changed by ses_b, ses_c (2 files)": one line for a row or a pane. */
export function overlapSummary(list: readonly Overlap[] | undefined): string | null {
  if (!list || list.length === 0) return null;
  const others = [...new Set(list.flatMap((o) => o.others))];
  const files = list.length === 1 ? (list[0] as Overlap).path : `${list.length} files`;
  return `also changed by ${others.join(", ")} (${files})`;
}

/**
 * The mark of a narrow row: a glyph and how many other sessions, "⇄2". Other sessions' ids
 * never go in the row, where they would push its own name out and read as its own; the
 * detail and the confirmation dialogs list them (overlapLines).
 */
export function overlapMark(list: readonly Overlap[] | undefined): string {
  if (!list || list.length === 0) return "";
  return `⇄${new Set(list.flatMap((o) => o.others)).size}`;
}

export interface OverlapState {
  readonly bySession: OverlapMap;
}

export interface OverlapStore extends StoreApi<OverlapState> {
  dispose(): void;
}

const NONE: OverlapMap = new Map();

/** The overlaps of the loaded sessions, recomputed when the list or a session's files change. */
export function createOverlapStore(
  sessions: Pick<SessionsStore, "getState" | "subscribe">,
  activity: Pick<ActivityTracker, "files" | "subscribe">,
): OverlapStore {
  const store = createStore<OverlapState>()(() => ({ bySession: NONE }));
  const recompute = () => {
    const next = findOverlaps(sessions.getState().items, (id) => activity.files(id));
    const cur = store.getState().bySession;
    if (next.size === 0 && cur.size === 0) return;
    store.setState({ bySession: next });
  };
  const offSessions = sessions.subscribe((s, prev) => {
    if (s.items !== prev.items) recompute();
  });
  const offFiles = activity.subscribe(recompute);
  recompute();
  return Object.assign(store, {
    dispose() {
      offSessions();
      offFiles();
    },
  });
}

/** What a push or pull request confirmation lists: each path and who else changed it. */
export function overlapLines(list: readonly Overlap[] | undefined, max = 5): string[] {
  if (!list || list.length === 0) return [];
  const lines = list.slice(0, max).map((o) => `${o.path} — also changed by ${o.others.join(", ")}`);
  if (list.length > max) lines.push(`… and ${list.length - max} more paths`);
  return lines;
}
