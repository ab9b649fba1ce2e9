import { Box, Text } from "ink";
import { memo, useMemo, useRef } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { selectMarkedIds } from "../../../store/attention/queue.js";
import { REASON_GLYPH } from "../../../store/attention/reasons.js";
import { hiddenFact, selectListMeta, selectVisibleSessions } from "../../../store/sessionsStore.js";
import { formatAge } from "../../../text/format.js";
import { displayWidth } from "../../../text/wrap.js";
import { useServices } from "../../context/servicesContext.js";
import { REASON_COLOR, stateBadge, type Theme, useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { throttled } from "../../hooks/throttle.js";
import { useTicked } from "../../hooks/useNow.js";
import {
  cutEnd,
  FLEET_REFRESH_MS,
  FLEET_STATE_WIDTH,
  type FleetColumns,
  type FleetRow,
  fleetColumns,
  fleetRows,
} from "../../model/fleetRows.js";
import { FLEET_CHROME_ROWS } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import { listWindowStart, scrollMoreText } from "../../model/layout.js";
import { orderSessions } from "../../model/listOrder.js";
import { destroyedNote, loadingMoreText } from "../../model/listRow.js";
import { rowLead } from "../../model/marks.js";
import type { AppServices } from "../../model/services.js";
import { TextInput } from "../chrome/TextInput.js";

/**
 * Every session in one table with live columns (k9s for agent sessions): a mark when it needs
 * attention or another session changed its files, its stream, state, id and name, agent, last
 * activity, events per minute over ten minutes, files changed and the current step. Only the
 * rows on screen are laid out, so a thousand sessions scroll like ten; the rows in view keep
 * a stream open (up to a cap), the others follow the list refresh.
 */

export interface FleetViewProps {
  width: number;
  height: number;
}

const SORT_LABELS: Record<string, string> = {
  updated: "updated",
  created: "created",
  id: "id",
  state: "state",
  title: "name",
};

const STREAM_GLYPHS: Record<string, string> = {
  live: "●",
  connecting: "◌",
  reconnecting: "↻",
  stopped: "■",
};

const Row = memo(function Row({
  row,
  selected,
  focused,
  cols,
  width,
  ticked,
}: {
  row: FleetRow;
  selected: boolean;
  /** Marked (Space, *): Z, U and K act on it with the other marked ones. */
  ticked: boolean;
  focused: boolean;
  cols: FleetColumns;
  width: number;
}) {
  const theme = useTheme();
  const badge = stateBadge(row.state);
  const streamColor =
    row.stream === "live"
      ? "ok"
      : row.stream === "stopped"
        ? "error"
        : row.stream
          ? "warn"
          : "muted";
  // One Text per column, not one for the row: Ink measures every Text on every frame, and a
  // column of plain ASCII is measured at once where a whole row with glyphs in it is measured
  // character by character. The columns are cut and padded to their widths already, and a
  // column that reads the same is not rendered again when another one of its row changes.
  const inverse = selected && focused;
  const stepCut = row.step.startsWith("…");
  const keep = cols.overflows;
  const marks = (
    <Text wrap="truncate-end" inverse={inverse} bold={selected}>
      <Text color={theme.c.accent}>{rowLead(selected, ticked)}</Text>
      {row.attention === null ? (
        <Text> </Text>
      ) : (
        <Text
          color={theme.c[REASON_COLOR[row.attention]]}
          bold={row.attentionLoud}
          dimColor={!row.attentionLoud && theme.dim}
        >
          {REASON_GLYPH[row.attention]}
        </Text>
      )}
      <Text color={theme.c.warn}>{row.overlap ? "⇄" : " "}</Text>
      <Text
        color={theme.c[streamColor]}
      >{`${row.stream ? (STREAM_GLYPHS[row.stream] ?? " ") : " "} `}</Text>
      <Text color={theme.c[badge.color]}>{`${badge.glyph} `}</Text>
    </Text>
  );
  return (
    // Too narrow for every column: they keep their widths and the row's end is cut off.
    <Box width={width} height={1} overflowX={keep ? "hidden" : "visible"}>
      {keep ? <Box flexShrink={0}>{marks}</Box> : marks}
      {/* The state's name apart from its glyph: plain ASCII, measured at once. */}
      <Cell
        text={cutEnd(badge.text, FLEET_STATE_WIDTH - 2)}
        color={theme.c[badge.color]}
        inverse={inverse}
        bold={selected}
        keep={keep}
      />
      <Cell text={row.idText} inverse={inverse} bold={selected} keep={keep} />
      <Cell text={row.name} inverse={inverse} bold keep={keep} />
      {cols.agent > 0 ? (
        <Cell text={row.agent} color={theme.c.accent} inverse={inverse} bold={selected} />
      ) : null}
      {cols.repo > 0 ? <Cell text={row.repo} inverse={inverse} bold={selected} /> : null}
      <Cell
        text={row.lastActivity}
        color={theme.c.muted}
        inverse={inverse}
        bold={selected}
        keep={keep}
      />
      {cols.usage > 0 ? (
        <Cell text={row.usage} color={theme.c.muted} inverse={inverse} bold={selected} />
      ) : null}
      <Cell text={row.spark} color={theme.c.accent} inverse={inverse} bold={selected} keep={keep} />
      <Cell text={row.files} inverse={inverse} bold={selected} keep={keep} />
      {cols.step > 0 && stepCut ? (
        // The "…" of a step cut at its start on its own: the rest is usually plain ASCII.
        <Cell text="…" color={theme.c.prompt} inverse={inverse} bold={selected} />
      ) : null}
      {cols.step > 0 ? (
        <Cell
          text={stepCut ? row.step.slice(1) : row.step}
          color={theme.c.prompt}
          inverse={inverse}
          bold={selected}
        />
      ) : null}
    </Box>
  );
});

/** One column of a fleet row; `keep` holds its width where the row is too narrow for all. */
const Cell = memo(function Cell({
  text,
  color,
  inverse,
  bold,
  keep = false,
}: {
  text: string;
  color?: string | undefined;
  inverse: boolean;
  bold: boolean;
  keep?: boolean;
}) {
  const cell = (
    <Text wrap="truncate-end" color={color} inverse={inverse} bold={bold}>
      {text}
    </Text>
  );
  return keep ? <Box flexShrink={0}>{cell}</Box> : cell;
});

function Headings({ cols, width, theme }: { cols: FleetColumns; width: number; theme: Theme }) {
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate-end" color={theme.c.muted} bold>
        {`     ${cutEnd("state", FLEET_STATE_WIDTH)}${cutEnd("session", cols.id)}${cutEnd("name", cols.name)}${cols.agent > 0 ? cutEnd("agent", cols.agent) : ""}${cols.repo > 0 ? cutEnd("repository", cols.repo) : ""}${cutEnd("activity", cols.last)}${cols.usage > 0 ? cutEnd("prompts · $", cols.usage) : ""}${cutEnd("ev/min 10m", cols.spark)}${cutEnd("files", cols.files)}${cols.step > 0 ? cutEnd("current step", cols.step) : ""}`}
      </Text>
    </Box>
  );
}

/** The title line after the count: the fleet's streams, the request budget, the list's age. */
function fleetHead(services: AppServices, now: number): string {
  const { sessions, streams, fleetStreams, budget } = services;
  const st = sessions.getState();
  const open = fleetStreams.openIds;
  const all = streams.getState().sessions;
  const live = open.filter((id) => all[id]?.status.state === "live").length;
  const b = budget.state;
  const waiting = b.waitingStreams > 0 ? `, ${b.waitingStreams} streams waiting` : "";
  const held = b.heldUntil !== null ? ", held after a 429" : "";
  const updated = st.refreshError
    ? `refresh failed: ${st.refreshError.message}`
    : st.loadedAt !== null
      ? `updated ${formatAge(now - st.loadedAt)}`
      : "";
  return `streams ${live} live of ${open.length} (cap ${fleetStreams.cap}) · budget ${b.available}/${b.figures.burst}${waiting}${held}${updated ? ` · ${updated}` : ""}`;
}

export const FleetView = memo(function FleetView({ width, height }: FleetViewProps) {
  const services = useServices();
  const { sessions, streams, attention, overlaps, budget } = services;
  const { ui } = useUi();
  const theme = useTheme();
  const sorted = useStore(sessions, selectVisibleSessions);
  const held = useStore(ui, (s) => s.heldOrder);
  const marked = useStore(attention, selectMarkedIds);
  const visible = orderSessions(sorted, held, marked);
  const meta = useStore(sessions, useShallow(selectListMeta));
  const { cursor, editing, ticks } = useStore(
    ui,
    useShallow((s) => ({
      cursor: s.fleetCursor,
      editing: s.editing?.kind === "filter",
      ticks: s.marks,
    })),
  );
  const inner = Math.max(10, width - 2);
  const rows = Math.max(1, height - FLEET_CHROME_ROWS);
  const at = Math.min(cursor, Math.max(0, visible.length - 1));
  const start = listWindowStart(at, visible.length, rows);
  const shown = visible.slice(start, start + rows);
  // One object while the width holds: the rows (memo) draw again only when their own row does.
  const cols = useMemo(() => fleetColumns(inner), [inner]);

  // The rows' live values and the title line, on the shared tick and on one beat for every
  // store they read (the streams, the budget, attention, overlaps, the list): at most ten
  // times a second while they keep changing, at once after a quiet spell. Fifty busy streams
  // change every frame, and the attention queue and the overlaps move with them; beats of
  // their own would draw their frames out of phase, each a whole frame. A key that moves the
  // rows in view reads them at once (the rows are an input), and the beat restarts from it.
  const beat = useMemo(
    () =>
      throttled((fn) => {
        const offs = [
          streams.subscribe(fn),
          budget.subscribe(fn),
          attention.subscribe(fn),
          overlaps.subscribe(fn),
          sessions.subscribe(fn),
        ];
        return () => {
          for (const off of offs) off();
        };
      }, FLEET_REFRESH_MS),
    [streams, budget, attention, overlaps, sessions],
  );
  const prev = useRef<readonly FleetRow[]>([]);
  const live = useTicked(
    (now) => {
      // Whatever makes this read the streams (the beat, a key, the clock) serves as a beat.
      beat.caughtUp();
      prev.current = fleetRows(services, shown, now, cols, prev.current);
      return { rows: prev.current, head: fleetHead(services, now) };
    },
    beat.subscribe,
    (a, b) => a.rows === b.rows && a.head === b.head,
    // Read on the beat and when the rows in view change, not on every render.
    [services, cols, ...shown],
  );
  const facts = live.rows;
  const head = live.head;

  const sort = `${SORT_LABELS[meta.sortKey] ?? meta.sortKey} ${meta.sortDir === "asc" ? "↑" : "↓"}`;
  const hidden = useStore(sessions, useShallow(hiddenFact));
  const base = `state: ${meta.stateFilter ?? "all"} · sort: ${sort}`;
  // Room for the note about destroyed and error sessions: what the filter hint leaves.
  const note =
    services.live !== null && !editing
      ? destroyedNote(hidden, inner - displayWidth(base) - 16)
      : null;
  const settings = note ? `${base} · ${note}` : base;
  // Rows out of view are said, first on the line so a narrow fleet keeps it.
  const scrolled = scrollMoreText(start, rows, visible.length);
  const status = meta.loading
    ? "loading sessions…"
    : meta.error
      ? `✗ ${meta.error.message}`
      : meta.loadingMore
        ? loadingMoreText(meta.toCome)
        : `${scrolled ? `${scrolled} · ` : ""}${visible.length} shown of ${meta.serverTotal ?? meta.total}${meta.hasMore ? " · not every page read" : ""} · ${keyOf("open")} opens a pane · ${keyOf("fleet")} or ${keyOf("cancel")} goes back`;

  // Every line of the table is cut to its width itself (truncating Texts in boxes of a set
  // width): clipping only the height spares Ink measuring and slicing every line again on
  // every frame, which at ten frames a second over a screenful of rows is most of its work.
  return (
    <Box
      width={width}
      height={height}
      flexDirection="column"
      borderStyle="double"
      borderColor={theme.c.focus}
      flexShrink={0}
      overflowY="hidden"
    >
      <Box height={1} width={inner}>
        <Text wrap="truncate-end">
          <Text bold color={theme.c.focus}>
            Fleet
          </Text>
          <Text>{` ${visible.length}/${meta.serverTotal ?? `${meta.total}${meta.hasMore ? "+" : ""}`}`}</Text>
          <Text color={theme.c.muted}>{` · ${head}`}</Text>
        </Text>
      </Box>
      <Box height={1} width={inner}>
        <Text wrap="truncate-end" color={theme.c.muted}>
          {`${settings} · `}
        </Text>
        {editing ? (
          <>
            <Text color={theme.c.accent}>/</Text>
            <TextInput
              value={meta.filterText}
              focus
              width={Math.max(4, inner - displayWidth(settings) - 4)}
            />
          </>
        ) : (
          <Text wrap="truncate-end" color={meta.filterText ? theme.c.accent : theme.c.muted}>
            {meta.filterText ? `filter: ${meta.filterText}` : `${keyOf("filter")} filter`}
          </Text>
        )}
      </Box>
      <Headings cols={cols} width={inner} theme={theme} />
      <Box height={rows} width={inner} flexDirection="column" overflowY="hidden">
        {facts.length === 0 ? (
          <Text color={theme.c.muted}>
            {meta.loading ? " " : meta.total === 0 ? "no sessions" : "no session matches"}
          </Text>
        ) : (
          facts.map((r, i) => (
            <Row
              key={r.id}
              row={r}
              selected={start + i === at}
              ticked={ticks.includes(r.id)}
              focused
              cols={cols}
              width={inner}
            />
          ))
        )}
      </Box>
      <Box height={1} width={inner}>
        <Text wrap="truncate-end" color={meta.error ? theme.c.error : theme.c.muted}>
          {status}
        </Text>
      </Box>
    </Box>
  );
});
