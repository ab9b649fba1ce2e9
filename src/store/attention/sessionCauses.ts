import { formatCount } from "../../text/format.js";
import type { AdmittedSession } from "../admitSession.js";
import type { SessionStream } from "../streams/sessionStream.js";
import { type AttentionItem, type AttentionSource, causeKey, sameItem } from "./queue.js";
import {
  type AttentionConfig,
  type AttentionReason,
  approvalCauses,
  awaitsApproval,
  type Cause,
  isWorking,
  KEPT_UNTIL_SEEN,
  type PendingApproval,
  reasonText,
  recordCauses,
  type StreamView,
  streamCauses,
} from "./reasons.js";

/**
 * One session's causes from what the attention store gathers for it (its record, its stream,
 * its pending approvals), and its items from those causes: pure functions of their
 * arguments. Why each reason holds is decided in reasons.ts.
 */

export type Rec = Readonly<Record<string, unknown>>;

/** What a session is evaluated from (unchanged inputs are not looked at again). */
export interface Inputs {
  rec: AdmittedSession | undefined;
  stream: SessionStream | undefined;
  approvals: readonly PendingApproval[] | undefined;
  /** Every pending approval the service listed, read or not (the book's pendingCount). */
  approvalCount: number;
}

export function sameInputs(a: Inputs, b: Inputs): boolean {
  return (
    a.rec === b.rec &&
    a.stream === b.stream &&
    a.approvals === b.approvals &&
    a.approvalCount === b.approvalCount
  );
}

/**
 * What reasons.ts reads of a stream. `silentSince` holds when each stream was first seen
 * silent (updated here: silence is a matter of time).
 */
export function streamViewOf(
  id: string,
  x: SessionStream,
  silentSince: Map<string, number>,
  now: number,
): StreamView {
  const st = x.status;
  let fault: StreamView["fault"] = null;
  if (st.state === "stopped" && st.error !== null) {
    const at = x.attention?.reason === "stopped" ? x.attention.at : now;
    fault = { kind: "stopped", message: x.attention?.message ?? st.reason, at };
    silentSince.delete(id);
  } else if (st.state === "reconnecting" && st.silent === true) {
    let at = silentSince.get(id);
    if (at === undefined) {
      at = now;
      silentSince.set(id, at);
    }
    fault = { kind: "silent", message: st.reason, at };
  } else if (st.state === "live") silentSince.delete(id);
  const stateAt =
    x.attention !== null && x.attention.reason === x.sessionState ? x.attention.at : null;
  return { state: x.sessionState, stateAt, prompt: x.prompt, fault };
}

export type SourcedCause = Cause & { source: AttentionSource };

/** Two sightings of one cause: the later time (a record read before a stream's news is stale). */
function mergeCause(had: SourcedCause, c: Cause, source: AttentionSource): SourcedCause {
  const since =
    had.since === null ? c.since : c.since === null ? had.since : Math.max(had.since, c.since);
  const fromC = since !== null && since === c.since && since !== had.since;
  return {
    ...had,
    // The record's detail when it has one of its own.
    detail: had.detail !== "" && !had.detail.startsWith("session ") ? had.detail : c.detail,
    since,
    sinceFrom: fromC ? c.sinceFrom : had.sinceFrom,
    source: fromC ? source : had.source,
  };
}

/**
 * The causes of one session, one per reason, each from its best source. `prev`: its record
 * as last evaluated (null at the first sight, which compares with `lastSeen`, when the user
 * last looked at it); `view`: its stream as reasons.ts reads it.
 */
export function causesOf(
  inp: Inputs,
  prev: Rec | null,
  lastSeen: number | null,
  view: StreamView | null,
): Map<AttentionReason, SourcedCause> {
  const out = new Map<AttentionReason, SourcedCause>();
  const put = (c: Cause, source: AttentionSource) => {
    const had = out.get(c.reason);
    out.set(c.reason, had === undefined ? { ...c, source } : mergeCause(had, c, source));
  };
  const rec = inp.rec as Rec | undefined;
  if (rec !== undefined) {
    for (const c of recordCauses(rec, prev, prev === null ? lastSeen : null)) put(c, "list");
  }
  if (view !== null) for (const c of streamCauses(view)) put(c, "stream");
  const pending = inp.approvals ?? [];
  if (
    pending.length > 0 &&
    (rec === undefined || awaitsApproval(rec) || !("agent_status" in rec))
  ) {
    // The book holds them oldest first: the first is the one the keys decide first.
    const [first] = approvalCauses(pending);
    if (first) {
      // The real count, not the ones read: 25 and 20,000 pending read differently.
      const more = Math.max(inp.approvalCount, pending.length) - 1;
      // A list cut at the book's bound: more are pending than `A` and the keys can offer.
      const unread = inp.approvalCount - pending.length;
      const cut = unread > 0 ? `, ${formatCount(unread)} of them not read` : "";
      const detail = more > 0 ? `${first.detail} (+${formatCount(more)} more${cut})` : first.detail;
      // The approval's own time and message win over the record's.
      out.set("approval", { ...first, detail, source: "approvals" });
    }
  }
  return out;
}

export interface SessionItemsContext {
  config: AttentionConfig;
  /** Causes the user saw and that went (finished, destroyed): kept out while they last. */
  dismissed: Set<string>;
  /** The catalogue is read whole: a session missing from it is gone. */
  complete: boolean;
  now: number;
}

/**
 * One session's items from its causes: each shown reason's item (the old object kept when
 * nothing differs, its seen mark and first time carried over), then what went but stays
 * until seen (a finish or a destruction). Clears `dismissed` for a cause that went, so it
 * may come back.
 */
export function sessionItems(
  id: string,
  inp: Inputs,
  causes: ReadonlyMap<AttentionReason, SourcedCause>,
  before: readonly AttentionItem[],
  ctx: SessionItemsContext,
): AttentionItem[] {
  const next: AttentionItem[] = [];
  const had = new Map(before.map((i) => [i.reason, i]));
  for (const [reason, c] of causes) {
    if (!ctx.config.show.has(reason)) continue;
    if (ctx.dismissed.has(causeKey(id, reason))) continue;
    const old = had.get(reason);
    had.delete(reason);
    const item: AttentionItem = {
      sessionId: id,
      reason,
      detail: c.detail,
      message: reasonText(reason, c.detail),
      since: c.since ?? old?.since ?? ctx.now,
      sinceFrom: c.since === null ? (old?.sinceFrom ?? "seen") : c.sinceFrom,
      source: c.source,
      seen: old?.seen ?? false,
      notify: ctx.config.notify.has(reason),
      approval: c.approval ?? null,
    };
    next.push(old !== undefined && sameItem(old, item) ? old : item);
  }
  // Reasons whose cause went: gone, except a finish or a destruction not yet seen.
  const rec = inp.rec as Rec | undefined;
  for (const [reason, old] of had) {
    const ended = reason === "finished" && rec !== undefined && isWorking(rec);
    const stillKnown = inp.rec !== undefined || inp.stream !== undefined || !ctx.complete;
    if (KEPT_UNTIL_SEEN.has(reason) && !old.seen && !ended && stillKnown) next.push(old);
  }
  // A dismissed item may come back once its cause has gone and returned.
  for (const reason of ["finished", "destroyed"] as const) {
    if (!causes.has(reason)) ctx.dismissed.delete(causeKey(id, reason));
  }
  return next;
}
