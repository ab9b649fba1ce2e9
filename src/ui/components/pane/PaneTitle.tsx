import { memo } from "react";
import { useStore } from "zustand";
import { shallow } from "zustand/shallow";
import { notifyingItemOf } from "../../../store/attention/queue.js";
import { REASON_LABEL } from "../../../store/attention/reasons.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import type { SessionStream } from "../../../store/streams/sessionStream.js";
import { formatCountdown, formatDuration, formatRate } from "../../../text/format.js";
import { useServices } from "../../context/servicesContext.js";
import { type ColorName, REASON_COLOR, stateBadge, useTheme } from "../../context/theme.js";
import { useTicked } from "../../hooks/useNow.js";
import { fittingTitle } from "../../model/geometry.js";
import { type BorderKind, BorderTitle, type Segment } from "../chrome/BorderTitle.js";

/**
 * A pane's title: number, session id, state badge, connection state, time since the last
 * heartbeat (warning as the watchdog bound nears) and event rate. It is derived on the UI's
 * shared 1 s tick and renders only when what it shows changed; the timeline under it never
 * ticks.
 */

/** Past this share of the watchdog bound, the heartbeat age is shown as stale. */
const STALE_SHARE = 0.75;

export function connectionLabel(
  status: SessionStream["status"],
  now: number,
): { text: string; color: ColorName } {
  switch (status.state) {
    case "connecting":
      return {
        text: status.attempt > 0 ? `◌ connecting (attempt ${status.attempt})` : "◌ connecting",
        color: "warn",
      };
    case "live":
      return { text: "● live", color: "ok" };
    case "reconnecting":
      return {
        text: `↻ reconnecting in ${formatCountdown(status.retryAt - now)} (attempt ${status.attempt})`,
        color: "warn",
      };
    case "stopped":
      return {
        text: `■ stopped: ${status.error?.message ?? status.reason}`,
        color: status.error ? "error" : "muted",
      };
  }
}

export interface PaneTitleProps {
  sessionId: string;
  number: number;
  focused: boolean;
  width: number;
  border: BorderKind;
  borderColor: string | undefined;
  note?: string | null;
}

/** Everything the title shows that comes from the stream and the clock: primitives only. */
interface TitleFacts {
  sessionState: string | null;
  /** null: no stream in the store. */
  conn: string | null;
  connColor: ColorName;
  stopped: boolean;
  /** "♥ 3s", "♥ —", with " stale" when late. */
  heartbeat: string;
  stale: boolean;
  rate: string;
}

function titleFacts(x: SessionStream | undefined, now: number): TitleFacts {
  if (!x) {
    return {
      sessionState: null,
      conn: null,
      connColor: "muted",
      stopped: false,
      heartbeat: "♥ —",
      stale: false,
      rate: formatRate(0),
    };
  }
  const conn = connectionLabel(x.status, now);
  const age = x.lastHeartbeatAt !== null ? Math.max(0, now - x.lastHeartbeatAt) : null;
  const stale =
    x.status.state === "live" &&
    age !== null &&
    x.watchdogMs !== null &&
    age >= x.watchdogMs * STALE_SHARE;
  return {
    sessionState: x.sessionState,
    conn: conn.text,
    connColor: conn.color,
    stopped: x.status.state === "stopped",
    heartbeat: age === null ? "♥ —" : `♥ ${formatDuration(age)}${stale ? " stale" : ""}`,
    stale,
    rate: formatRate(x.rateMeter.rate(now)),
  };
}

export const PaneTitle = memo(function PaneTitle({
  sessionId,
  number,
  focused,
  width,
  border,
  borderColor,
  note = null,
}: PaneTitleProps) {
  const { streams, sessions, attention, replay } = useServices();
  const theme = useTheme();
  // Derived on the shared tick and on store changes, compared field by field: a heartbeat
  // that leaves "♥ 0s" as it was re-renders nothing.
  const s = useTicked(
    (now) => titleFacts(streams.getState().sessions[sessionId], now),
    streams.subscribe,
    shallow,
  );
  const recordState = useStore(sessions, (st) => {
    const v = selectRecord(st, sessionId)?.state;
    return typeof v === "string" ? v : null;
  });
  const known = stateBadge(s.sessionState ?? recordState);
  // A recording that never said the session's state: say so, not "unknown" like a live one.
  const badge =
    replay && (s.sessionState ?? recordState) === null ? { ...known, text: "not recorded" } : known;
  // The attention queue decides (the list's view of the session as well as its stream's).
  const needsYou = useStore(attention, (st) => notifyingItemOf(st, sessionId)?.reason ?? null);

  // The reason named: "⚠ awaiting approval".
  const alert: Segment[] = needsYou
    ? [
        { text: "⚠", color: "error", bold: true, inverse: true },
        { text: ` ${REASON_LABEL[needsYou]} `, color: REASON_COLOR[needsYou], bold: true },
      ]
    : [];
  const head: Segment = {
    text: `${number} ${sessionId}`,
    bold: true,
    color: focused ? "focus" : undefined,
    inverse: focused && theme.noColor,
  };
  const noted: Segment[] = note ? [{ text: ` [${note}]`, color: "warn" }] : [];
  const sep: Segment = { text: " · ", color: "muted" };
  const state: Segment = { text: `${badge.glyph} ${badge.text}`, color: badge.color };
  // A recording is played, not streamed: its pane never says "● live".
  const conn: Segment = replay
    ? { text: "▶ replay", color: "accent" }
    : { text: s.conn ?? "○ closed", color: s.conn ? s.connColor : "muted" };
  const live: Segment[] = s.stopped
    ? []
    : [
        sep,
        { text: s.heartbeat, color: s.stale ? "warn" : undefined, bold: s.stale },
        sep,
        { text: s.rate },
      ];
  // Narrow panes keep what matters most in sight: the session's state and the connection.
  const segments = fittingTitle(
    [
      [...alert, head, ...noted, { ...state, text: ` ${state.text}` }, sep, conn, ...live],
      [...alert, head, ...noted, { ...state, text: ` ${state.text}` }, sep, conn],
      [
        ...alert,
        { ...head, text: `${number} ` },
        state,
        sep,
        conn,
        sep,
        { ...head, text: sessionId },
        ...noted,
      ],
    ],
    width,
  );
  return <BorderTitle segments={segments} width={width} kind={border} color={borderColor} />;
});
