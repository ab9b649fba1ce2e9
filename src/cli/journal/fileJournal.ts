import { readFileSync } from "node:fs";
import {
  appendFile,
  chmod,
  open,
  readdir,
  rename,
  stat,
  unlink,
  writeFile,
} from "node:fs/promises";
import { basename, join } from "node:path";
import {
  ensurePrivateDir,
  PRIVATE_FILE_MODE,
  writePrivateFileAtomic,
} from "../../credentials/privateFile.js";
import {
  createJournalStatus,
  type JournalLoad,
  type JournalStatusStore,
  type SessionJournal,
} from "../../store/history/journal.js";
import {
  journalLine,
  parseRecordLine,
  type RecordedEvent,
  type StoredData,
  storedData,
  type TextCleaner,
} from "../../store/history/recordFormat.js";
import { mapShownText } from "../../text/payloadText.js";
import type { Redactor, StreamRedaction } from "../../text/redact.js";
import { holderFile, sessionFiles } from "./journalPaths.js";

/**
 * The journal on disk: every event a pane received, per session, as NDJSON lines (the
 * `watch --json` shape plus `received_at`), cleaned as stored text is and with the key
 * redacted. Files are 0600 in 0700 folders.
 *
 * On the event path `record` only appends to a bounded per-session queue; a timer turns the
 * queue into lines and appends them, one write per session per second, one batch in flight.
 * Bounds: each session keeps its current file and the older half (the current one becomes
 * the older half when it reaches half the session budget, dropping the oldest half), and the
 * whole journal stays under its total budget by deleting the least recently written files.
 * A write that fails (disk full, a folder that is not one, no permission) turns the journal
 * off for the rest of the run and says so in `status`; the UI goes on without it.
 */

export interface FileJournalOptions {
  /** This service's folder (see journalPaths.ts). */
  dir: string;
  /** The journal's root folder: the total budget covers every service's folder in it. */
  root: string;
  clean: TextCleaner;
  /**
   * The key's redactor: each session's events are also redacted as one stream over their
   * shown text (payloadText's field), so a key sent a few characters an event never reaches
   * the file in pieces of half its length or more. Absent: each string on its own (`clean`).
   */
  secrets?: Pick<Redactor, "stream">;
  /** Bytes one session keeps on disk (both halves). Default 2 MiB. */
  maxSessionBytes?: number;
  /** Bytes the whole journal keeps. Default 100 MiB. */
  maxTotalBytes?: number;
  /** Longest wait before queued events are written. Default 1000 ms. */
  flushMs?: number;
  /**
   * Events queued per session between writes; past it the oldest go first. Default 2000: a
   * session's 2 MiB hold about that many, so a flood keeps its newest in the journal either way.
   */
  maxQueuedPerSession?: number;
  /** A heartbeat is written at most this often (it marks until when someone watched). */
  heartbeatEveryMs?: number;
  now?: () => number;
}

export interface FileJournal extends SessionJournal {
  /** Write what is queued and wait for it (before the process exits). */
  dispose(): Promise<void>;
  /**
   * When the user last looked at a session (went to it from the attention queue), as an
   * earlier run remembered it; null when none did. What completed after it is news.
   */
  lastSeen(sessionId: string): number | null;
  /** The user looked at the session now: remembered for the next run (written with the rest). */
  markSeen(sessionId: string, at: number): void;
}

/** The file beside the sessions' journals that remembers when each session was last seen. */
export const SEEN_FILE = "seen.json";
/** Sessions whose last look is remembered; the longest unseen are forgotten first. */
export const MAX_SEEN = 2000;

export const DEFAULT_MAX_SESSION_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_TOTAL_BYTES = 100 * 1024 * 1024;
/** Events cleaned and encoded between two yields to the event loop. */
const ENCODE_CHUNK = 250;

interface Queue {
  events: string[];
  datas: string[];
  ids: (string | null)[];
  ats: number[];
  /** When a heartbeat was last queued (they are thinned out). */
  beatAt: number;
}

interface FileState {
  size: number;
  /** The file ends in the middle of a line (a crash mid-write): start on a new one. */
  needsNewline: boolean;
}

const FS_REASONS: Record<string, string> = {
  ENOENT: "no such file or folder",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "read-only file system",
  ENOTDIR: "not a folder",
  EISDIR: "a folder is in the way",
  EEXIST: "a file is in the way",
};

/** "no space left on device (ENOSPC)", from a file-system error. */
export function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const code = typeof err?.code === "string" ? err.code : null;
  if (code && FS_REASONS[code]) return `${FS_REASONS[code]} (${code})`;
  return err instanceof Error ? err.message : String(e);
}

export function createFileJournal(opts: FileJournalOptions): FileJournal {
  return new FileJournalImpl(opts);
}

class FileJournalImpl implements FileJournal {
  readonly status: JournalStatusStore;
  readonly clean: TextCleaner;
  private readonly maxSessionBytes: number;
  private readonly maxTotalBytes: number;
  private readonly flushMs: number;
  private readonly maxQueued: number;
  private readonly beatEveryMs: number;
  private readonly now: () => number;
  private readonly queues = new Map<string, Queue>();
  private readonly files = new Map<string, FileState>();
  /** Each session's stream redaction (see FileJournalOptions.secrets), in the order written. */
  private readonly redactions = new Map<string, StreamRedaction>();
  private failed = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private again = false;
  private readonly ready: Promise<void>;
  private readonly seen: Map<string, number>;
  private seenDirty = false;

  constructor(private readonly opts: FileJournalOptions) {
    this.clean = opts.clean;
    this.maxSessionBytes = opts.maxSessionBytes ?? DEFAULT_MAX_SESSION_BYTES;
    this.maxTotalBytes = opts.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
    this.flushMs = opts.flushMs ?? 1000;
    this.maxQueued = opts.maxQueuedPerSession ?? 2000;
    this.beatEveryMs = opts.heartbeatEveryMs ?? 60_000;
    this.now = opts.now ?? Date.now;
    this.status = createJournalStatus({ state: "on", dir: opts.dir, reason: null });
    this.seen = readSeen(join(opts.dir, SEEN_FILE));
    // Known at once whether the folder can be made: the UI says so before the first event.
    this.ready = ensurePrivateDir(opts.dir)
      .then(() => writeFile(holderFile(opts.dir), `${process.pid}\n`, { mode: 0o600 }))
      .then(() => this.enforceTotal())
      .catch((e: unknown) => this.fail(opts.dir, e));
  }

  record(
    sessionId: string,
    event: string | undefined,
    data: string,
    id: string | undefined,
    at: number,
  ): void {
    if (this.failed) return;
    let q = this.queues.get(sessionId);
    if (!q) {
      q = { events: [], datas: [], ids: [], ats: [], beatAt: Number.NEGATIVE_INFINITY };
      this.queues.set(sessionId, q);
    }
    const name = event ?? "message";
    if (name === "heartbeat") {
      if (at - q.beatAt < this.beatEveryMs) return;
      q.beatAt = at;
    }
    q.events.push(name);
    q.datas.push(data);
    q.ids.push(id === undefined || id === "" ? null : id);
    q.ats.push(at);
    // Amortised: the oldest half goes at twice the bound, not one event at a time.
    if (q.events.length >= 2 * this.maxQueued) {
      const cut = q.events.length - this.maxQueued;
      q.events.splice(0, cut);
      q.datas.splice(0, cut);
      q.ids.splice(0, cut);
      q.ats.splice(0, cut);
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  lastSeen(sessionId: string): number | null {
    return this.seen.get(sessionId) ?? null;
  }

  markSeen(sessionId: string, at: number): void {
    if (this.failed) return;
    // Kept in the order last seen: the first is the one seen longest ago.
    this.seen.delete(sessionId);
    this.seen.set(sessionId, at);
    for (const id of this.seen.keys()) {
      if (this.seen.size <= MAX_SEEN) break;
      this.seen.delete(id);
    }
    this.seenDirty = true;
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  closeSession(sessionId: string): void {
    if (this.failed) return;
    const at = this.now();
    const q = this.queues.get(sessionId);
    if (q) q.beatAt = Number.NEGATIVE_INFINITY;
    // Watched until now: what the next run's gap marker starts from.
    this.record(
      sessionId,
      "heartbeat",
      JSON.stringify({ timestamp: new Date(at).toISOString() }),
      undefined,
      at,
    );
    this.flush();
  }

  async load(sessionId: string): Promise<JournalLoad> {
    // What this run queued or is writing for the session belongs in what is read back.
    if ((this.queues.get(sessionId)?.events.length ?? 0) > 0) this.flush();
    await this.ready;
    while (this.writing) await this.writing;
    const files = sessionFiles(this.opts.dir, sessionId);
    const records: RecordedEvent[] = [];
    const warnings: string[] = [];
    let watchedUntil: number | null = null;
    for (const path of [files.older, files.current]) {
      const text = await this.readTail(path, warnings);
      if (text === null) continue;
      let skipped = 0;
      for (const line of text.split("\n")) {
        const parsed = parseRecordLine(line);
        if (parsed.kind === "bad") skipped++;
        if (parsed.kind !== "event") continue;
        const r = parsed.record;
        if (r.sessionId !== null && r.sessionId !== sessionId) continue;
        records.push(r);
        if (r.at !== null && (watchedUntil === null || r.at > watchedUntil)) watchedUntil = r.at;
      }
      if (skipped > 0) {
        warnings.push(
          `journal: ${skipped} unreadable line${skipped === 1 ? "" : "s"} skipped in ${basename(path)}`,
        );
      }
    }
    return { records, warnings, watchedUntil };
  }

  async dispose(): Promise<void> {
    this.flush();
    while (this.writing) await this.writing;
    await this.ready;
    // Let go: `journal prune` may remove this folder's files from now on.
    await unlink(holderFile(this.opts.dir)).catch(() => {});
  }

  /** The last maxSessionBytes of a file (its first, partial line dropped), or null. */
  private async readTail(path: string, warnings: string[]): Promise<string | null> {
    let fh: Awaited<ReturnType<typeof open>> | null = null;
    try {
      fh = await open(path, "r");
      const { size } = await fh.stat();
      const length = Math.min(size, this.maxSessionBytes);
      const buf = Buffer.alloc(length);
      await fh.read(buf, 0, length, size - length);
      let text = buf.toString("utf8");
      if (length < size) text = text.slice(text.indexOf("\n") + 1);
      return text;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") {
        warnings.push(`journal: cannot read ${basename(path)}: ${fsReason(e)}; skipped`);
      }
      return null;
    } finally {
      await fh?.close();
    }
  }

  private flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.failed) return;
    if (this.writing) {
      this.again = true;
      return;
    }
    const batch: { sessionId: string; items: Queue }[] = [];
    for (const [sessionId, q] of this.queues) {
      if (q.events.length === 0) continue;
      // The queued columns go to the writer; the session queues anew.
      batch.push({ sessionId, items: { ...q } });
      q.events = [];
      q.datas = [];
      q.ids = [];
      q.ats = [];
    }
    const seen = this.seenDirty ? JSON.stringify(Object.fromEntries(this.seen)) : null;
    this.seenDirty = false;
    if (batch.length === 0 && seen === null) return;
    this.writing = this.writeAll(batch, seen).finally(() => {
      this.writing = null;
      if (this.again) {
        this.again = false;
        this.flush();
      }
    });
  }

  /**
   * Lines are made (cleaned, encoded) a chunk at a time, each chunk appended before the next
   * is made: a burst never holds the event loop for more than one chunk's work.
   */
  private async writeAll(
    batch: { sessionId: string; items: Queue }[],
    seen: string | null,
  ): Promise<void> {
    await this.ready;
    if (seen !== null && !this.failed) {
      const path = join(this.opts.dir, SEEN_FILE);
      try {
        await writePrivateFileAtomic(path, seen);
      } catch (e) {
        this.fail(path, e);
      }
    }
    for (const { sessionId, items } of batch) {
      const files = sessionFiles(this.opts.dir, sessionId);
      for (let from = 0; from < items.events.length; from += ENCODE_CHUNK) {
        if (this.failed) return;
        let text = "";
        const to = Math.min(items.events.length, from + ENCODE_CHUNK);
        for (let i = from; i < to; i++) {
          // The name and the id are the server's too: cleaned like the data, so no piece of
          // the key reaches the file whichever field carried it.
          const event = this.clean(items.events[i] as string, false);
          const stored = this.redactShown(
            sessionId,
            storedData(event, items.datas[i] as string, this.clean),
          );
          const rawId = items.ids[i] as string | null;
          const id = rawId === null ? null : this.clean(rawId, false);
          const at = items.ats[i] as number;
          text += `${journalLine(sessionId, event, id, stored, at)}\n`;
        }
        try {
          await this.append(sessionId, files, text);
        } catch (e) {
          this.fail(files.current, e);
        }
      }
    }
  }

  /** The stored data with its shown text passed through the session's stream redaction. */
  private redactShown(sessionId: string, stored: StoredData): StoredData {
    const secrets = this.opts.secrets;
    if (!secrets) return stored;
    let r = this.redactions.get(sessionId);
    if (!r) {
      r = secrets.stream();
      this.redactions.set(sessionId, r);
    }
    const push = (text: string) => (r as StreamRedaction).push(text);
    return stored.json
      ? { json: true, value: mapShownText(stored.value, push) }
      : { json: false, raw: push(stored.raw) };
  }

  /**
   * Appends lines, a part of at most half the session budget at a time; a part that would
   * take the current file past half first turns it into the older half (dropping the oldest
   * half). So each file stays within half the budget, and what is dropped is always oldest.
   */
  private async append(
    sessionId: string,
    files: { current: string; older: string },
    text: string,
  ): Promise<void> {
    let state = this.files.get(sessionId);
    if (!state) {
      state = await this.fileState(files.current);
      this.files.set(sessionId, state);
    }
    const half = Math.max(1, Math.floor(this.maxSessionBytes / 2));
    for (const part of parts(text, half)) {
      const bytes = Buffer.byteLength(part);
      if (state.size > 0 && state.size + bytes > half) {
        await rename(files.current, files.older);
        state.size = 0;
        state.needsNewline = false;
        await this.enforceTotal();
      }
      const body = state.needsNewline ? `\n${part}` : part;
      state.needsNewline = false;
      await appendFile(files.current, body, { mode: PRIVATE_FILE_MODE });
      state.size += Buffer.byteLength(body);
    }
  }

  private async fileState(path: string): Promise<FileState> {
    let size: number;
    try {
      const st = await stat(path);
      size = st.size;
      if (st.isFile() && (st.mode & 0o077) !== 0) await chmod(path, PRIVATE_FILE_MODE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return { size: 0, needsNewline: false };
      throw e;
    }
    let needsNewline = false;
    if (size > 0) {
      const fh = await open(path, "r");
      try {
        const last = Buffer.alloc(1);
        await fh.read(last, 0, 1, size - 1);
        needsNewline = last[0] !== 0x0a;
      } catch {
        // A character device (or anything else without a last byte) needs nothing.
      } finally {
        await fh.close();
      }
    }
    return { size, needsNewline };
  }

  /** Delete the least recently written files until the whole journal fits its budget. */
  private async enforceTotal(): Promise<void> {
    const root = this.opts.root;
    const found: { path: string; size: number; mtime: number }[] = [];
    let dirs: string[];
    try {
      dirs = (await readdir(root, { withFileTypes: true }))
        .filter((d) => d.isDirectory())
        .map((d) => join(root, d.name));
    } catch {
      return;
    }
    let total = 0;
    for (const dir of dirs) {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (!name.endsWith(".ndjson")) continue;
        const path = join(dir, name);
        try {
          const st = await stat(path);
          if (!st.isFile()) continue;
          found.push({ path, size: st.size, mtime: st.mtimeMs });
          total += st.size;
        } catch {
          // Gone meanwhile.
        }
      }
    }
    if (total <= this.maxTotalBytes) return;
    found.sort((a, b) => a.mtime - b.mtime);
    for (const f of found) {
      if (total <= this.maxTotalBytes) break;
      try {
        await unlink(f.path);
        total -= f.size;
      } catch {
        // Gone meanwhile, or not ours to delete.
      }
    }
    // Sizes known for open files may be stale now: read them again on the next write.
    this.files.clear();
  }

  /** Off for the rest of the run; the status names the path that failed and why. */
  private fail(path: string, e: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.queues.clear();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.status.setState({ state: "failed", dir: path, reason: fsReason(e) });
  }
}

/** Whole lines of `text` in parts of at most `max` bytes (a longer line is a part of its own). */
function parts(text: string, max: number): string[] {
  if (Buffer.byteLength(text) <= max) return [text];
  const out: string[] = [];
  let part = "";
  let size = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const bytes = Buffer.byteLength(line) + 1;
    if (size > 0 && size + bytes > max) {
      out.push(part);
      part = "";
      size = 0;
    }
    part += `${line}\n`;
    size += bytes;
  }
  if (part !== "") out.push(part);
  return out;
}

/** What an earlier run remembered: session id → when last seen. Unreadable: nothing. */
function readSeen(path: string): Map<string, number> {
  const out = new Map<string, number>();
  try {
    const o = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (o === null || typeof o !== "object" || Array.isArray(o)) return out;
    for (const [id, at] of Object.entries(o as Record<string, unknown>)) {
      if (typeof at === "number" && Number.isFinite(at)) out.set(id, at);
      if (out.size >= MAX_SEEN) break;
    }
  } catch {
    // No file yet (a first run), or one cut short: nothing is remembered.
  }
  return out;
}
