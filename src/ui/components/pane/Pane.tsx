import { memo, useMemo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { createStore } from "zustand/vanilla";
import { type ActState, actOf } from "../../../store/act/actStore.js";
import type { FollowUpState } from "../../../store/act/followUps.js";
import { notifyingItemOf, selectTopItems } from "../../../store/attention/queue.js";
import { overlapSummary } from "../../../store/fleet/overlaps.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { useApprovalsEntry } from "../../hooks/useApprovals.js";
import { useQuietSearchText } from "../../hooks/useQuietSearchText.js";
import { actLines } from "../../model/actLines.js";
import { disabledReason } from "../../model/gitActions.js";
import { commandById } from "../../model/keymap.js";
import { paneBody } from "../../model/layout.js";
import {
  computeWindow,
  maskWindow,
  matchStats,
  newCount,
  type TimelineWindow,
} from "../../model/paneView.js";
import { paneViewOf } from "../../model/uiStore.js";
import { ActPanel } from "./ActPanel.js";
import { PaneFrame } from "./PaneFrame.js";
import { PaneStatus } from "./PaneStatus.js";
import { Timeline } from "./Timeline.js";

/**
 * One session's live pane. It subscribes to its own session's slice only, and lays out only
 * the lines on screen, so a busy neighbour never re-renders it and a full scrollback costs
 * no more than an empty one.
 */

export interface PaneProps {
  sessionId: string;
  /** 1-based pane number (the focus key). */
  number: number;
  width: number;
  height: number;
  focused: boolean;
  /** Shown in the title, e.g. how many panes are hidden for lack of room. */
  note?: string | null;
}

const EMPTY: TimelineWindow = { lines: [], top: null, atEnd: true };
/** A store that never changes, for a UI without acting (a replay). */
const NO_ACT = createStore<ActState>()(() => ({ bySession: new Map(), busy: new Set() }));
const NO_FOLLOW_UPS = createStore<FollowUpState>()(() => ({ queues: new Map(), held: new Map() }));
const NO_ITEMS: readonly string[] = [];

export const Pane = memo(function Pane({
  sessionId,
  number,
  width,
  height,
  focused,
  note = null,
}: PaneProps) {
  const {
    streams,
    attention: attentionStore,
    overlaps,
    act,
    followUps,
    identity,
    secrets,
  } = useServices();
  const { ui } = useUi();
  const theme = useTheme();
  // Only what the pane body shows: a heartbeat or a status change replaces the session
  // object but leaves these as they were, so it does not lay the pane out again.
  const { buf, rows, open } = useStore(
    streams,
    useShallow((s) => {
      const x = s.sessions[sessionId];
      return {
        buf: x?.timeline,
        rows: x?.timeline.version ?? -1,
        open: x !== undefined,
      };
    }),
  );
  useQuietSearchText(buf, rows);
  const attention = useStore(attentionStore, (s) => notifyingItemOf(s, sessionId) !== null);
  // Why it failed, as the attention queue has it (the record's error_message, the prompt's).
  const failure = useStore(attentionStore, (s) => {
    const item = selectTopItems(s).get(sessionId);
    return item?.reason === "failed" ? item.detail : null;
  });
  const overlap = useStore(overlaps, (s) => overlapSummary(s.bySession.get(sessionId)));
  const view = useStore(ui, (s) => paneViewOf(s, sessionId));
  const searchDraft = useStore(ui, (s) =>
    s.editing?.kind === "search" && s.editing.sessionId === sessionId ? s.editing.draft : null,
  );
  const actState = useStore(act ?? NO_ACT, (s) => actOf(s, sessionId));
  const book = useApprovalsEntry(sessionId);
  const promptEditing = useStore(ui, (s) =>
    s.editing?.kind === "prompt" && s.editing.sessionId === sessionId ? s.editing : null,
  );
  const keyInfo = useStore(identity, (s) => s.keyInfo);
  const queue = useStore(
    followUps ?? NO_FOLLOW_UPS,
    useShallow((s) => ({
      items: s.queues.get(sessionId) ?? NO_ITEMS,
      held: s.held.get(sessionId) ?? null,
    })),
  );
  const full = paneBody({ width, height });
  const panel = useMemo(
    () =>
      actLines({
        act: actState,
        approvals: book,
        editing: promptEditing,
        role: keyInfo ? keyInfo.role : undefined,
        writeDisabled: disabledReason(commandById("approve"), { keyInfo }),
        failure,
        queue,
        width: full.width,
        maxRows: Math.max(0, Math.floor(full.rows / 2)),
      }),
    [actState, book, promptEditing, keyInfo, failure, queue, full.width, full.rows],
  );
  const body = { ...full, rows: Math.max(1, full.rows - panel.length) };
  // The buffer is mutated in place; its version, as of the store's last batch, is the signal
  // to lay out again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: rows marks new entries
  const win = useMemo(() => {
    if (!buf) return EMPTY;
    const vp = { rows: body.rows, width: body.width, noColor: theme.noColor };
    return maskWindow(buf, view, vp, computeWindow(buf, view, vp), secrets);
  }, [buf, rows, view, body.rows, body.width, theme.noColor, secrets]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: rows marks new entries
  const stats = useMemo(
    () => (buf && view.query ? matchStats(buf, view) : null),
    [buf, rows, view],
  );
  const fresh = buf ? newCount(buf, view) : 0;
  return (
    <PaneFrame
      sessionId={sessionId}
      number={number}
      width={width}
      height={height}
      focused={focused}
      attention={attention}
      note={note}
    >
      <Timeline
        lines={win.lines}
        rows={body.rows}
        width={body.width}
        query={view.query.toLowerCase()}
        matchSeq={view.matchSeq}
        empty={open ? "waiting for events…" : "not streaming"}
      />
      <ActPanel lines={panel} width={body.width} />
      <PaneStatus
        view={view}
        newCount={fresh}
        stats={stats}
        searchDraft={searchDraft}
        width={body.width}
        overlap={overlap}
      />
    </PaneFrame>
  );
});
