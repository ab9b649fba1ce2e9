import { Box, Text } from "ink";
import { memo, useMemo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { type Session, sessionName } from "../../../protocol/resources.js";
import { lastActivityAt } from "../../../protocol/sessionRecord.js";
import { textOrEmpty } from "../../../protocol/values.js";
import { displayId } from "../../../store/admitSession.js";
import {
  type AttentionItem,
  selectMarkedIds,
  selectTopItems,
} from "../../../store/attention/queue.js";
import { REASON_GLYPH } from "../../../store/attention/reasons.js";
import { type Overlap, overlapMark, overlapSummary } from "../../../store/fleet/overlaps.js";
import { hiddenFact, selectListMeta, selectVisibleSessions } from "../../../store/sessionsStore.js";
import { formatAgeCoarse } from "../../../text/format.js";
import { displayWidth } from "../../../text/wrap.js";
import { useServices } from "../../context/servicesContext.js";
import { REASON_COLOR, stateBadge, useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { useTicked } from "../../hooks/useNow.js";
import { type ListRowStyle, listRowStyle } from "../../model/geometry.js";
import { listRows, listWindowStart } from "../../model/layout.js";
import { orderSessions } from "../../model/listOrder.js";
import { destroyedNote, listRowMeta, loadingMoreText } from "../../model/listRow.js";
import { rowLead } from "../../model/marks.js";
import { TextInput } from "../chrome/TextInput.js";

/**
 * The sessions: badges, name, agent and where (repo, visibility, sandbox) as the width
 * allows (the title before the id when it is narrow: model/geometry.ts listRowStyle),
 * filter, state filter, sort, paging as you scroll.
 */

export interface SessionListProps {
  width: number;
  height: number;
  focused: boolean;
}

const SORT_LABELS: Record<string, string> = {
  updated: "updated",
  created: "created",
  id: "id",
  state: "state",
  title: "name",
};

/** The rows' ages change in these steps (formatAgeCoarse's finest). */
const ACTIVITY_STEP_MS = 5000;

const Row = memo(function Row({
  session,
  selected,
  attention,
  pane,
  style,
  width,
  listFocused,
  overlap,
  meta,
  idWidth,
  ticked,
}: {
  session: Session;
  selected: boolean;
  /** Marked (Space, *): Z, U and K act on it with the other marked ones. */
  ticked: boolean;
  /** The session's most pressing attention item, if any (its reason is the row's mark). */
  attention: AttentionItem | undefined;
  pane: number;
  style: ListRowStyle;
  width: number;
  listFocused: boolean;
  /** Paths another session on the repository changed too, if any. */
  overlap: readonly Overlap[] | undefined;
  /** What follows the name (listRowMeta): last activity, repository, prompts, cost, … */
  meta: string;
  /** The id column's width: the widest listed id, so UUIDs and ses_… ids keep one column. */
  idWidth: number;
}) {
  const theme = useTheme();
  const badge = stateBadge(textOrEmpty(session.state));
  const title = sessionName(session) ?? "";
  const wide = style === "wide";
  const compact = style === "compact";
  const agent = textOrEmpty(session.agent);
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate-end" inverse={selected && listFocused} bold={selected}>
        <Text color={theme.c.accent}>{rowLead(selected, ticked)}</Text>
        {attention === undefined ? (
          <Text> </Text>
        ) : (
          // The reason's glyph: bold in its colour while it calls, dimmed when it does not
          // notify (a pause) or was seen.
          <Text
            color={theme.c[REASON_COLOR[attention.reason]]}
            bold={attention.notify && !attention.seen}
            dimColor={(!attention.notify || attention.seen) && theme.dim}
          >
            {REASON_GLYPH[attention.reason]}
          </Text>
        )}
        <Text color={theme.c.muted}>{pane > 0 ? String(pane) : " "}</Text>
        {compact ? (
          <>
            <Text color={theme.c[badge.color]}>{` ${badge.glyph}`}</Text>
            {overlap && overlap.length > 0 ? (
              <Text color={theme.c.warn}>{` ${overlapMark(overlap)}`}</Text>
            ) : null}
            <Text> {title || displayId(session)}</Text>
          </>
        ) : (
          <>
            <Text> {padCells(displayId(session), idWidth)} </Text>
            <Text color={theme.c[badge.color]}>
              {badge.glyph} {badge.text.padEnd(wide ? 10 : 6)}
            </Text>
            {wide && agent ? <Text color={theme.c.accent}>{` ${agent.padEnd(11)}`}</Text> : null}
            {overlap && overlap.length > 0 ? (
              <Text color={theme.c.warn}>
                {/* Narrow rows keep the name: a glyph and a count (the detail lists who). */}
                {wide ? ` ⇄ ${overlapSummary(overlap)} ·` : ` ${overlapMark(overlap)}`}
              </Text>
            ) : null}
            <Text> {title}</Text>
          </>
        )}
        {meta ? <Text color={theme.c.muted}>{`  ${meta}`}</Text> : null}
      </Text>
    </Box>
  );
});

/** Widest id column a row gives up room for (a longer id pushes its own row only). */
const MAX_ID_WIDTH = 40;

/** The id column's width: the widest id listed (every row, so scrolling does not move it). */
function listIdWidth(sessions: readonly Session[]): number {
  let w = 0;
  for (const s of sessions) w = Math.max(w, displayWidth(displayId(s)));
  return Math.min(w, MAX_ID_WIDTH);
}

/** Text padded with blanks to `width` cells (wide characters count two). */
function padCells(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

export const SessionList = memo(function SessionList({ width, height, focused }: SessionListProps) {
  const { sessions, attention: attentionStore, overlaps, live } = useServices();
  const { ui } = useUi();
  const theme = useTheme();
  const sorted = useStore(sessions, selectVisibleSessions);
  const held = useStore(ui, (s) => s.heldOrder);
  const marked = useStore(attentionStore, selectMarkedIds);
  // What needs you first; the order held while keys are pressed (model/listOrder.ts).
  const visible = orderSessions(sorted, held, marked);
  const meta = useStore(sessions, useShallow(selectListMeta));
  const { cursor, editing, panes, ticks } = useStore(
    ui,
    useShallow((s) => ({
      cursor: s.listCursor,
      editing: s.editing?.kind === "filter",
      panes: s.panes,
      ticks: s.marks,
    })),
  );
  const attention = useStore(attentionStore, selectTopItems);
  const overlapOf = useStore(overlaps, (s) => s.bySession);
  // How fresh the list is, on the shared tick; nothing where the list never refreshes (a
  // replay's list is the recording).
  const refreshes = live !== null;
  const freshness = useTicked((now) => {
    if (!refreshes) return "";
    const st = sessions.getState();
    if (st.refreshError) return `refresh failed: ${st.refreshError.message}`;
    if (st.loadedAt === null) return "";
    return `updated ${formatAgeCoarse(now - st.loadedAt)}`;
  }, sessions.subscribe);
  const inner = Math.max(4, width - 2);
  const idWidth = useMemo(() => listIdWidth(visible), [visible]);
  const rows = listRows(height);
  const style = listRowStyle(inner);
  const at = Math.min(cursor, Math.max(0, visible.length - 1));
  const start = listWindowStart(at, visible.length, rows);
  const shown = visible.slice(start, start + rows);
  // The rows' last activity, on the shared tick in 5 s steps (the coarse age changes no
  // faster), and only while a row shows one.
  const clock = useTicked((now) =>
    style !== "compact" && shown.some((s) => lastActivityAt(s) !== null)
      ? Math.floor(now / ACTIVITY_STEP_MS) * ACTIVITY_STEP_MS
      : 0,
  );
  const hidden = useStore(sessions, useShallow(hiddenFact));
  const settings = `state: ${meta.stateFilter ?? "all"} · sort: ${SORT_LABELS[meta.sortKey] ?? meta.sortKey} ${meta.sortDir === "asc" ? "↑" : "↓"}`;
  // The service leaves destroyed and error sessions out unless asked: said where a service
  // lists (a recording's list is whole).
  const note = refreshes ? destroyedNote(hidden, inner - displayWidth(settings) - 3) : null;
  const settingsLine = note ? `${settings} · ${note}` : settings;

  const status = meta.loading
    ? { text: "loading sessions…", color: theme.c.muted }
    : meta.error
      ? { text: `✗ ${meta.error.message}`, color: theme.c.error }
      : meta.loadingMore
        ? { text: loadingMoreText(meta.toCome), color: theme.c.muted }
        : {
            text: `${
              meta.serverTotal !== null && meta.serverTotal !== meta.total
                ? `${meta.serverTotal} sessions, ${meta.total} loaded · ${visible.length} shown${meta.hasMore ? " · not every page read" : ""}`
                : `${visible.length} shown of ${meta.total} loaded${meta.hasMore ? " · not every page read" : ""}`
            }${freshness ? ` · ${freshness}` : ""}`,
            color: freshness.startsWith("refresh failed") ? theme.c.warn : theme.c.muted,
          };

  return (
    <Box
      width={width}
      height={height}
      flexDirection="column"
      borderStyle={focused ? "double" : "single"}
      borderColor={focused ? theme.c.focus : theme.c.muted}
      flexShrink={0}
      // Clipped by height only: every line below is a box of the inner width whose text is
      // cut to it, so Ink need not slice each coloured row to the width again.
      overflowY="hidden"
    >
      <Box height={1} width={inner}>
        <Text wrap="truncate-end">
          <Text bold color={focused ? theme.c.focus : undefined}>
            Sessions
          </Text>
          <Text>{` ${visible.length}/${meta.serverTotal ?? `${meta.total}${meta.hasMore ? "+" : ""}`}`}</Text>
          {editing ? <Text color={theme.c.accent}> /</Text> : null}
          {editing ? null : meta.filterText ? (
            <Text color={theme.c.accent}>{` filter: ${meta.filterText}`}</Text>
          ) : (
            <Text color={theme.c.muted}> (/ filter)</Text>
          )}
        </Text>
        {editing ? (
          <TextInput value={meta.filterText} focus width={Math.max(4, inner - 16)} />
        ) : null}
      </Box>
      <Box height={1} width={inner}>
        <Text wrap="truncate-end" color={theme.c.muted}>
          {settingsLine}
        </Text>
      </Box>
      <Box height={rows} width={inner} flexDirection="column">
        {shown.length === 0 ? (
          <Text color={theme.c.muted} wrap="truncate-end">
            {meta.loading
              ? " "
              : meta.total === 0
                ? // A list that could not be read is not an empty one: say why, where it would be.
                  meta.error
                  ? `could not list sessions: ${meta.error.message}`
                  : "no sessions"
                : "no session matches"}
          </Text>
        ) : (
          shown.map((s, i) => (
            <Row
              key={s.session_id}
              session={s}
              selected={start + i === at}
              ticked={ticks.includes(s.session_id)}
              attention={attention.get(s.session_id)}
              overlap={overlapOf.get(s.session_id)}
              pane={panes.indexOf(s.session_id) + 1}
              style={style}
              width={inner}
              listFocused={focused}
              meta={listRowMeta(s, style, inner, clock)}
              idWidth={idWidth}
            />
          ))
        )}
      </Box>
      <Box height={1} width={inner}>
        <Text wrap="truncate-end" color={status.color}>
          {status.text}
        </Text>
      </Box>
    </Box>
  );
});
