import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFileJournal, SEEN_FILE } from "../../src/cli/journal/fileJournal.js";
import { journalCleaner } from "../../src/cli/journal/journalSetup.js";
import type { Session, SessionPage } from "../../src/protocol/resources.js";
import { createAttentionStore } from "../../src/store/attention/attentionStore.js";
import { createSessionsStore } from "../../src/store/sessionsStore.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * "Finished" across restarts: the journal remembers when the user last looked at each
 * session, and at the next start a prompt that completed after that is finished, one that
 * completed before is not.
 */

afterEach(stopStarted);

const SEEN_AT = Date.parse("2026-10-01T10:00:00Z");
const completed = (id: string, at: string) => ({
  session_id: id,
  state: "active",
  agent_status: "idle",
  updated_at: at,
  last_prompt: { status: "completed", completed_at: at },
});

describe("the journal's memory of what the user saw", () => {
  it("survives a restart, and only what completed after the last look is finished", async () => {
    const root = mkdtempSync(join(tmpdir(), "as-seen-"));
    stopAfterTest(() => rmSync(root, { recursive: true, force: true }));
    const dir = join(root, "svc");
    const first = createFileJournal({ dir, root, clean: journalCleaner, flushMs: 10 });
    expect(first.lastSeen("ses_new")).toBeNull();
    // The user looked at both sessions in an earlier run.
    const sessions0 = createSessionsStore({
      async listSessions(): Promise<SessionPage> {
        return { sessions: [], total: null, hasMore: false, next: null };
      },
    });
    const earlier = createAttentionStore({
      sessions: sessions0,
      now: () => SEEN_AT,
      onSeen: (id, at) => first.markSeen(id, at),
    });
    earlier.getState().acknowledge("ses_new");
    earlier.getState().acknowledge("ses_old");
    earlier.dispose();
    await first.dispose();
    expect(statSync(join(dir, SEEN_FILE)).mode & 0o777).toBe(0o600);

    // The next run: ses_new completed after the last look, ses_old before it.
    const second = createFileJournal({ dir, root, clean: journalCleaner, flushMs: 10 });
    expect(second.lastSeen("ses_new")).toBe(SEEN_AT);
    const sessions = createSessionsStore({
      async listSessions(): Promise<SessionPage> {
        return {
          sessions: [
            completed("ses_new", "2026-10-01T11:00:00Z"),
            completed("ses_old", "2026-10-01T09:00:00Z"),
            completed("ses_never", "2026-10-01T11:00:00Z"),
          ] as Session[],
          total: null,
          hasMore: false,
          next: null,
        };
      },
    });
    const attention = createAttentionStore({
      sessions,
      lastSeen: (id) => second.lastSeen(id),
    });
    await sessions.getState().load();
    expect(attention.getState().items.map((i) => [i.sessionId, i.reason])).toEqual([
      ["ses_new", "finished"],
    ]);
    attention.dispose();
    await second.dispose();
  });
});
