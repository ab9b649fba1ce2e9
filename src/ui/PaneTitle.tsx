import { memo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import type { SessionStream } from "../store/streamsStore.js";
import { formatCountdown, formatDuration, formatRate } from "../text/format.js";
import { type BorderKind, BorderTitle, type Segment } from "./BorderTitle.js";
import { useNow } from "./hooks/useNow.js";
import { useServices } from "./services.js";
import { type ColorName, stateBadge, useTheme } from "./theme.js";

/**
 * A pane's title: number, session id, state badge, connection state, time since the last
 * heartbeat (warning as the watchdog bound nears) and event rate. It ticks once a second;
 * the timeline under it does not.
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

export const PaneTitle = memo(function PaneTitle({
  sessionId,
  number,
  focused,
  width,
  border,
  borderColor,
  note = null,
}: PaneTitleProps) {
  const { streams, sessions } = useServices();
  const theme = useTheme();
  const now = useNow();
  const s = useStore(
    streams,
    useShallow((st) => {
      const x = st.sessions[sessionId];
      return {
        status: x?.status ?? null,
        lastHeartbeatAt: x?.lastHeartbeatAt ?? null,
        watchdogMs: x?.watchdogMs ?? null,
        sessionState: x?.sessionState ?? null,
        attention: x?.attention ?? null,
        meter: x?.rateMeter ?? null,
      };
    }),
  );
  const recordState = useStore(sessions, (st) => {
    const v = st.items.find((x) => x.session_id === sessionId)?.state;
    return typeof v === "string" ? v : null;
  });
  const badge = stateBadge(s.sessionState ?? recordState);
  const conn: { text: string; color: ColorName } = s.status
    ? connectionLabel(s.status, now)
    : { text: "○ closed", color: "muted" };
  const live = s.status?.state === "live";
  const age = s.lastHeartbeatAt !== null ? Math.max(0, now - s.lastHeartbeatAt) : null;
  const stale = live && age !== null && s.watchdogMs !== null && age >= s.watchdogMs * STALE_SHARE;

  const segments: Segment[] = [];
  if (s.attention) {
    segments.push({ text: "⚠", color: "error", bold: true, inverse: true });
    segments.push({ text: " " });
  }
  segments.push({
    text: `${number} ${sessionId}`,
    bold: true,
    color: focused ? "focus" : undefined,
    inverse: focused && theme.noColor,
  });
  if (note) segments.push({ text: ` [${note}]`, color: "warn" });
  segments.push({ text: ` ${badge.glyph} ${badge.text}`, color: badge.color });
  segments.push({ text: " · ", color: "muted" });
  segments.push({ text: conn.text, color: conn.color });
  if (s.status?.state !== "stopped") {
    segments.push({ text: " · ", color: "muted" });
    segments.push({
      text: age === null ? "♥ —" : `♥ ${formatDuration(age)}${stale ? " stale" : ""}`,
      color: stale ? "warn" : undefined,
      bold: stale,
    });
    segments.push({ text: " · ", color: "muted" });
    segments.push({ text: s.meter ? formatRate(s.meter.rate(now)) : formatRate(0) });
  }
  return <BorderTitle segments={segments} width={width} kind={border} color={borderColor} />;
});
