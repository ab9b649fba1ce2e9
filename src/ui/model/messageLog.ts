import { type ErrorInfo, toErrorInfo } from "../../store/errorInfo.js";
import { formatTime } from "../../text/format.js";
import { wrapWords } from "../../text/wrap.js";
import { outcomeText } from "./gitActions.js";
import type { AppServices } from "./services.js";
import { LOG_LIMIT, type LogEntry, type MessageLevel, type UiState } from "./uiStore.js";

/**
 * The messages log: every message the status line showed and every error the services
 * reported, whole, with its time. The status line and the header may cut a long text to
 * their one line; the log never does, and the status line says where it is.
 */

/** The log with one more entry, bounded: what falls off the front is counted. */
export function appendLog(
  s: Pick<UiState, "log" | "logDropped">,
  entry: LogEntry,
): Pick<UiState, "log" | "logDropped"> {
  const over = s.log.length + 1 - LOG_LIMIT;
  if (over <= 0) return { log: [...s.log, entry], logDropped: s.logDropped };
  return { log: [...s.log.slice(over), entry], logDropped: s.logDropped + over };
}

/** An error as one whole text: what happened, the scope it needed, what to do next. */
export function errorText(what: string, e: ErrorInfo): string {
  const scope = e.requiredScope ? ` (needs ${e.requiredScope})` : "";
  return `${what}${e.message}${scope}${e.hint ? ` — ${e.hint}` : ""}`;
}

export type LogSink = (level: MessageLevel, text: string) => void;

/**
 * Feeds the log from the services: how each git action ended, a failed load of the session
 * list or of the key, a stream that stopped on an error. Plain subscriptions (no React);
 * returns the unsubscribe.
 */
export function feedLogFromServices(services: AppServices, log: LogSink): () => void {
  const { actions, sessions, identity, streams } = services;
  const listFailed = (e: ErrorInfo) =>
    log("error", errorText("Loading the session list failed: ", e));
  const keyFailed = (e: ErrorInfo) => log("error", errorText("Key check failed: ", e));
  const whoFailed = (e: ErrorInfo) => log("warn", errorText("Identity lookup failed: ", e));
  const offs = [
    actions.subscribe((s, prev) => {
      const o = s.last;
      if (o && o !== prev.last) log(o.ok ? "ok" : "error", outcomeText(o));
    }),
    sessions.subscribe((s, prev) => {
      if (s.error && s.error !== prev.error) listFailed(s.error);
      // The live list's refresh (Ctrl-R, the timer): once per failure, not once per retry of it.
      const failed = s.refreshError;
      if (failed && failed !== prev.refreshError && failed.message !== prev.refreshError?.message) {
        log("error", errorText("Refreshing the session list failed: ", failed));
      }
    }),
    identity.subscribe((s, prev) => {
      if (s.error && s.error !== prev.error) keyFailed(s.error);
      if (s.identityError && s.identityError !== prev.identityError) whoFailed(s.identityError);
    }),
    streams.subscribe((s, prev) => {
      if (s.sessions === prev.sessions) return;
      for (const [id, x] of Object.entries(s.sessions)) {
        const st = x.status;
        if (st.state !== "stopped" || !st.error) continue;
        const before = prev.sessions[id]?.status;
        if (before?.state === "stopped" && before.error?.message === st.error.message) continue;
        log("error", errorText(`The stream of ${id} stopped: `, toErrorInfo(st.error)));
      }
    }),
  ];
  // The CLI starts loading before the UI mounts: a failure that came first is logged now.
  const listed = sessions.getState();
  if (listed.error) listFailed(listed.error);
  const who = identity.getState();
  if (who.error) keyFailed(who.error);
  if (who.identityError) whoFailed(who.identityError);
  return () => {
    for (const off of offs) off();
  };
}

export interface LogLine {
  /** "HH:MM:SS" on an entry's first line, "" on the lines that continue it. */
  time: string;
  level: MessageLevel;
  text: string;
  first: boolean;
}

/** Width of "HH:MM:SS ✗ ": the time, the level's mark and their gaps. */
export const LOG_PREFIX_WIDTH = 11;

/** The log as display lines, newest entry first, each wrapped whole to `width` cells. */
export function logLines(entries: readonly LogEntry[], width: number): LogLine[] {
  const room = Math.max(8, width - LOG_PREFIX_WIDTH);
  const out: LogLine[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as LogEntry;
    const time = formatTime(e.at);
    const pieces = e.text.split("\n").flatMap((l) => wrapWords(l, room));
    pieces.forEach((text, n) => {
      out.push({ time: n === 0 ? time : "", level: e.level, text, first: n === 0 });
    });
  }
  return out;
}
