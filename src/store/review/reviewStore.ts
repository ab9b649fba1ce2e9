import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiClient } from "../../client/apiClient.js";
import type { FileEntry, SearchResult } from "../../protocol/review.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import { sanitize, sanitizeLine } from "../../text/sanitize.js";
import { type ErrorInfo, toErrorInfo } from "../errorInfo.js";

/**
 * What the changes view, the files browser and the links menu show of one session, read when
 * they open: `git status` and `git diff` (indexed once by protocol/unifiedDiff.ts, drawn a
 * screenful at a time), a folder's entries, a file's text, a search, the detected ports.
 * Names and messages are sanitized (and stripped of the key) as they arrive; the diff's text
 * is kept as sent (the view sanitizes and masks the rows it draws; a local `git apply` needs
 * it byte for byte). One session at a time: opening another forgets the last one's.
 */

export interface Loaded<T> {
  readonly loading: boolean;
  readonly value: T | null;
  readonly error: ErrorInfo | null;
}

const idle = <T>(): Loaded<T> => ({ loading: false, value: null, error: null });
const loadingNow = <T>(): Loaded<T> => ({ loading: true, value: null, error: null });

/** A changed file `git status` names (sanitized). */
export interface StatusFile {
  path: string;
  change: string;
}

/** The session's changes: the diff (raw, indexed by the view) and what status says. */
export interface Changes {
  /** The patch as sent, or null when the answer held none. */
  patch: string | null;
  status: readonly StatusFile[];
  /** The session's branch, when status named it (sanitized). */
  branch: string | null;
  /** Said when an answer held nothing usable, or the diff was empty. */
  note: string | null;
}

/** A file's text for the read-only view: sanitized lines, or why it is not shown. */
export interface WholeText {
  path: string;
  lines: readonly string[];
  size: number;
  /** A binary file is named, never shown. */
  binary: boolean;
}

export interface Listing {
  dir: string;
  entries: readonly FileEntry[];
}

/** A search hit: the path as sent (for reading it) and as shown (sanitized). */
export interface Hit extends SearchResult {
  shown: string;
}

export interface Hits {
  query: string;
  results: readonly Hit[];
}

export interface Port {
  port: number;
  process: string | null;
}

export interface ReviewState {
  readonly sessionId: string | null;
  readonly changes: Loaded<Changes>;
  readonly whole: Loaded<WholeText>;
  readonly listing: Loaded<Listing>;
  readonly hits: Loaded<Hits>;
  readonly ports: Loaded<readonly Port[]>;
  /** Read the session's status and diff (again). */
  loadChanges(sessionId: string): Promise<void>;
  /** A file's whole text. */
  readWhole(sessionId: string, path: string): Promise<void>;
  /** A folder's entries. */
  list(sessionId: string, dir: string): Promise<void>;
  /** File names and contents matching `query`. */
  search(sessionId: string, query: string): Promise<void>;
  clearSearch(): void;
  /** The session's detected ports. */
  loadPorts(sessionId: string): Promise<void>;
}

export type ReviewStore = StoreApi<ReviewState>;

export type ReviewApi = Pick<
  ApiClient,
  "gitStatus" | "gitDiff" | "listFiles" | "readFile" | "searchFiles" | "workspaceState"
>;

/** Lines a file view keeps: past this the rest is said, not kept. */
export const MAX_FILE_LINES = 100_000;

export function createReviewStore(api: ReviewApi, opts: { redact?: RedactFn } = {}): ReviewStore {
  const redact = opts.redact ?? noRedaction;
  const line = (t: string) => redact(sanitizeLine(t));
  // Each read carries a ticket: an answer that comes after a newer read began is dropped.
  const tickets = { changes: 0, whole: 0, listing: 0, hits: 0, ports: 0 };
  type Part = keyof typeof tickets;

  return createStore<ReviewState>()((set, get) => {
    /** Start a read of `part` for a session (forgetting another session's). */
    const begin = (sessionId: string, part: Part): number => {
      if (get().sessionId !== sessionId) {
        set({
          sessionId,
          changes: idle(),
          whole: idle(),
          listing: idle(),
          hits: idle(),
          ports: idle(),
        });
      }
      set({ [part]: loadingNow() } as Partial<ReviewState>);
      tickets[part]++;
      return tickets[part];
    };
    const finish = <T>(part: Part, ticket: number, sessionId: string, value: Loaded<T>) => {
      if (tickets[part] !== ticket || get().sessionId !== sessionId) return;
      set({ [part]: value } as Partial<ReviewState>);
    };
    const failed = <T>(e: unknown): Loaded<T> => ({
      loading: false,
      value: null,
      error: toErrorInfo(e, redact),
    });
    const ok = <T>(value: T): Loaded<T> => ({ loading: false, value, error: null });

    return {
      sessionId: null,
      changes: idle(),
      whole: idle(),
      listing: idle(),
      hits: idle(),
      ports: idle(),

      async loadChanges(sessionId) {
        const t = begin(sessionId, "changes");
        try {
          // Both at once: the list of changed files and the patch.
          const [status, diff] = await Promise.all([
            api.gitStatus(sessionId).then(
              (s) => ({ s }),
              (e: unknown) => ({ e }),
            ),
            api.gitDiff(sessionId),
          ]);
          const notes: string[] = [];
          let files: StatusFile[] = [];
          let branch: string | null = null;
          if ("s" in status) {
            const r = status.s.reading;
            if (r.kind === "status") {
              files = r.files.map((f) => ({ path: line(f.path), change: line(f.change) }));
              branch = r.branch === null ? null : line(r.branch);
            } else notes.push(`git status: ${line(r.reason)}`);
          } else notes.push(`git status failed: ${toErrorInfo(status.e, redact).message}`);
          const d = diff.reading;
          let patch: string | null = null;
          if (!diff.answer.ok) notes.push(`git diff failed: ${line(diff.answer.error ?? "")}`);
          else if (d.kind === "patch") patch = d.patch;
          else if (d.kind === "empty")
            notes.push("git diff: the session has no uncommitted changes");
          else notes.push(`git diff: ${line(d.reason)}`);
          finish(
            "changes",
            t,
            sessionId,
            ok({ patch, status: files, branch, note: notes.join("; ") || null }),
          );
        } catch (e) {
          finish("changes", t, sessionId, failed(e));
        }
      },

      async readWhole(sessionId, path) {
        const t = begin(sessionId, "whole");
        try {
          const f = await api.readFile(sessionId, path);
          let lines: string[] = [];
          if (!f.binary) {
            const text = redact(sanitize(new TextDecoder().decode(f.bytes)));
            lines = text.split("\n");
            if (lines.length > 1 && lines.at(-1) === "") lines.pop();
            if (lines.length > MAX_FILE_LINES) {
              const more = lines.length - MAX_FILE_LINES;
              lines = lines.slice(0, MAX_FILE_LINES);
              lines.push(`… ${more} more lines not shown`);
            }
          }
          finish(
            "whole",
            t,
            sessionId,
            ok({ path: line(f.path), lines, size: f.size, binary: f.binary }),
          );
        } catch (e) {
          finish("whole", t, sessionId, failed(e));
        }
      },

      async list(sessionId, dir) {
        const t = begin(sessionId, "listing");
        try {
          const entries = await api.listFiles(sessionId, { path: dir });
          const clean = entries
            .map((e) => ({ ...e, name: line(e.name), path: e.path }))
            .sort((a, b) =>
              (a.type === "directory") !== (b.type === "directory")
                ? a.type === "directory"
                  ? -1
                  : 1
                : a.name.localeCompare(b.name),
            );
          finish("listing", t, sessionId, ok({ dir, entries: clean }));
        } catch (e) {
          finish("listing", t, sessionId, failed(e));
        }
      },

      async search(sessionId, query) {
        const t = begin(sessionId, "hits");
        try {
          const results = await api.searchFiles(sessionId, query);
          const clean = results.map((r) => ({
            path: r.path,
            shown: line(r.path),
            matches: r.matches.map((m) => ({ line: m.line, content: line(m.content) })),
          }));
          finish("hits", t, sessionId, ok({ query, results: clean }));
        } catch (e) {
          finish("hits", t, sessionId, failed(e));
        }
      },

      clearSearch() {
        tickets.hits++;
        set({ hits: idle() });
      },

      async loadPorts(sessionId) {
        const t = begin(sessionId, "ports");
        try {
          const w = await api.workspaceState(sessionId);
          const ports = w.ports.map((p) => ({
            port: p.port,
            process: p.process === null ? null : line(p.process),
          }));
          finish("ports", t, sessionId, ok(ports));
        } catch (e) {
          finish("ports", t, sessionId, failed(e));
        }
      },
    };
  });
}

const nothing = () => Promise.reject(new Error("no service to ask"));

/** An empty store for where there is no service (a replay): views select from it, idle. */
export const NO_REVIEW: ReviewStore = createReviewStore({
  gitStatus: nothing,
  gitDiff: nothing,
  listFiles: nothing,
  readFile: nothing,
  searchFiles: nothing,
  workspaceState: nothing,
});
