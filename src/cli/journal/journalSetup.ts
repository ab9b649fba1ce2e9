import { readConfig } from "../../credentials/profiles.js";
import type { FollowUpStorage } from "../../store/act/followUps.js";
import { createJournalStatus, type JournalStatusStore } from "../../store/history/journal.js";
import type { TextCleaner } from "../../store/history/recordFormat.js";
import { sanitize } from "../../text/sanitize.js";
import { redact, secrets } from "../output.js";
import { createFileJournal, type FileJournal } from "./fileJournal.js";
import { followUpFile, followUpPath } from "./followUpFile.js";
import { journalRoot, serviceJournalDir } from "./journalPaths.js";

/** Stored text is cleaned as the timeline cleans it, and no registered secret survives. */
export const journalCleaner: TextCleaner = (text, keepSgr) =>
  redact(sanitize(text, keepSgr ? { keepSgr: true } : undefined));

export interface JournalChoice {
  /** Null when the journal is off. */
  journal: FileJournal | null;
  status: JournalStatusStore;
  /** The profile's follow-up queues, kept beside the journal (absent when it is off). */
  followUps?: FollowUpStorage;
}

/** The config file's switch: `"journal": false` turns the journal off. */
export async function journalSwitchedOff(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  try {
    return (await readConfig(env)).journal === false;
  } catch {
    // An unreadable config file is reported by the commands that need it.
    return false;
  }
}

/** The journal for a UI run against one service, unless --no-journal or the config says off. */
export async function journalFor(
  baseUrl: string,
  opts: { noJournal?: boolean; env?: NodeJS.ProcessEnv; profile?: string } = {},
): Promise<JournalChoice> {
  const env = opts.env ?? process.env;
  const dir = serviceJournalDir(baseUrl, env);
  if (opts.noJournal) {
    return {
      journal: null,
      status: createJournalStatus({ state: "off", dir, reason: "--no-journal" }),
    };
  }
  if (await journalSwitchedOff(env)) {
    return {
      journal: null,
      status: createJournalStatus({
        state: "off",
        dir,
        reason: "turned off in the config (agent-sessions journal on)",
      }),
    };
  }
  const journal = createFileJournal({
    dir,
    root: journalRoot(env),
    clean: journalCleaner,
    secrets,
  });
  return {
    journal,
    status: journal.status,
    followUps: followUpFile(followUpPath(dir, opts.profile)),
  };
}
