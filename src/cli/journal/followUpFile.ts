import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFileAtomic } from "../../credentials/privateFile.js";
import { MAX_PROMPT_CHARS } from "../../protocol/prompt.js";
import {
  type FollowUpStorage,
  MAX_QUEUED,
  type StoredFollowUps,
} from "../../store/act/followUps.js";

/**
 * The follow-up queues on disk: one small JSON per profile beside the journal's `seen.json`
 * (the service's journal folder), written whole (0600, replaced atomically) after each
 * change, one write in flight and the newest content last. A file that cannot be read is an
 * empty queue; a write that fails is dropped (the queue goes on in memory).
 */

export function followUpPath(dir: string, profile: string | null | undefined): string {
  const name = (profile ?? "default").replace(/[^A-Za-z0-9_.-]/g, "_");
  return join(dir, `followups-${name}.json`);
}

export function readFollowUps(path: string): StoredFollowUps {
  const out: StoredFollowUps = {};
  try {
    const o = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (o === null || typeof o !== "object" || Array.isArray(o)) return out;
    for (const [id, v] of Object.entries(o as Record<string, unknown>)) {
      if (v === null || typeof v !== "object") continue;
      const { items, held } = v as { items?: unknown; held?: unknown };
      if (!Array.isArray(items)) continue;
      const kept = items
        .filter((t): t is string => typeof t === "string" && t.trim() !== "")
        .map((t) => t.slice(0, MAX_PROMPT_CHARS))
        .slice(0, MAX_QUEUED);
      if (kept.length > 0) out[id] = { items: kept, held: typeof held === "string" ? held : null };
    }
  } catch {
    // No file yet, or one cut short: no queue.
  }
  return out;
}

export function followUpFile(path: string): FollowUpStorage {
  let writing: Promise<void> = Promise.resolve();
  let next: string | null = null;
  const drain = async () => {
    while (next !== null) {
      const text = next;
      next = null;
      await writePrivateFileAtomic(path, text).catch(() => {});
    }
  };
  return {
    load: () => readFollowUps(path),
    save(data) {
      const idle = next === null;
      next = `${JSON.stringify(data)}\n`;
      if (idle) writing = writing.then(drain);
    },
    flushed: () => writing,
  };
}
