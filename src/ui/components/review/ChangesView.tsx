import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { NO_REVIEW } from "../../../store/review/reviewStore.js";
import { wrapLine } from "../../../text/wrap.js";
import { useServices } from "../../context/servicesContext.js";
import { type ColorName, useTheme } from "../../context/theme.js";
import {
  type ChangesRow,
  layoutOfChanges,
  maskedRows,
  type RowKind,
} from "../../model/changesView.js";
import { keyOf } from "../../model/keymap.js";
import type { ChangesOverlayState } from "../../model/uiStore.js";
import { FramedBox } from "../frame/FramedBox.js";
import { Prose } from "../frame/Prose.js";
import { WholeFile } from "./WholeFile.js";

/**
 * The changes view: the changed files with their +/− counts, then the coloured diff, a
 * screenful at a time (model/changesView.ts decodes, sanitizes and masks only those rows).
 */

const COLOR: Partial<Record<RowKind, ColorName>> = {
  summary: "accent",
  file: "accent",
  hunk: "accent",
  added: "ok",
  removed: "error",
  marker: "muted",
  binary: "warn",
};

function Row({ row, match, width }: { row: ChangesRow; match: boolean; width: number }) {
  const theme = useTheme();
  const color = COLOR[row.kind];
  // Cut here to the box's width: Ink then has nothing to truncate (the costly part of a frame).
  const text = row.text === "" ? " " : (wrapLine(row.text, width)[0] ?? " ");
  return (
    <Text
      wrap="truncate-end"
      bold={row.kind === "file" || row.kind === "summary"}
      inverse={match}
      {...(color ? { color: theme.c[color] } : {})}
    >
      {text}
    </Text>
  );
}

export const ChangesView = memo(function ChangesView({
  overlay: o,
  width,
  height,
}: {
  overlay: ChangesOverlayState;
  width: number;
  height: number;
}) {
  const { review, secrets } = useServices();
  const theme = useTheme();
  const store = review?.store ?? NO_REVIEW;
  const changes = useStore(store, (s) => (s.sessionId === o.sessionId ? s.changes : null));
  // The box's border and title, and the status row under the rows.
  const rows = Math.max(1, height - 4);
  const closes = `${keyOf("cancel")} closes`;
  if (o.whole) {
    return (
      <FramedBox
        width={width}
        height={height}
        title={`${o.whole.path}`}
        note={` — read-only · ${closes} · ${o.sessionId}`}
      >
        <WholeFile store={store} offset={o.whole.offset} rows={rows + 1} width={width - 4} />
      </FramedBox>
    );
  }
  const title = `Changes of ${o.sessionId}`;
  const keys = ` — ${keyOf("nextHunk")}/${keyOf("prevHunk")} hunk · ${keyOf("nextFile")}/${keyOf("prevFile")} file · ${keyOf("reviewSearch")} search · ${keyOf("reviewOpen")} whole file · ${keyOf("takeHome")} take home · ${closes}`;
  if (!changes || (changes.loading && !changes.value)) {
    return (
      <FramedBox width={width} height={height} title={title} note={keys}>
        <Text color={theme.c.muted}>reading git status and git diff…</Text>
      </FramedBox>
    );
  }
  if (changes.error || !changes.value) {
    return (
      <FramedBox width={width} height={height} title={title} note={keys} tone="error">
        <Prose
          width={width - 4}
          color={theme.c.error}
          text={`Reading the changes failed: ${changes.error?.message ?? "no answer"}`}
        />
        {changes.error?.hint ? <Prose width={width - 4} text={changes.error.hint} /> : null}
      </FramedBox>
    );
  }
  const layout = layoutOfChanges(changes.value, o.seen);
  const shown = maskedRows(layout, o.offset, rows, secrets);
  const needle = o.search?.text.toLowerCase() ?? "";
  const at = layout.rows === 0 ? 0 : Math.round(((o.offset + shown.length) / layout.rows) * 100);
  const search = o.search?.editing
    ? `/${o.search.draft}▏`
    : o.search?.text
      ? `/${o.search.text} (${keyOf("reviewNext")}/${keyOf("reviewPrev")})`
      : "";
  return (
    <FramedBox width={width} height={height} title={title} note={keys} cutToWidth>
      <Box flexDirection="column" height={rows}>
        {shown.map((r, i) => (
          <Row
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions on screen
            key={i}
            row={r}
            width={width - 4}
            match={needle !== "" && r.text.toLowerCase().includes(needle)}
          />
        ))}
      </Box>
      <Text wrap="truncate-end" color={theme.c.muted}>
        {`row ${Math.min(layout.rows, o.offset + 1)}/${layout.rows} · ${at}%${changes.loading ? " · reading again…" : ""}${search ? `  ${search}` : ""}`}
      </Text>
    </FramedBox>
  );
});
