import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { sessionName } from "../../../protocol/resources.js";
import { displayId } from "../../../store/admitSession.js";
import type { AttentionItem } from "../../../store/attention/attentionStore.js";
import { formatAge, formatTime } from "../../../text/format.js";
import { useServices } from "../../context/servicesContext.js";
import { stateBadge, useTheme } from "../../context/theme.js";
import { useTicked } from "../../hooks/useNow.js";
import { detailRows } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import { listWindowStart } from "../../model/layout.js";
import { OverlayFrame } from "./OverlayFrame.js";

/**
 * The attention queue: every session that needs the user, newest first, with why, since
 * when, and where it was seen (the list or its stream). Seen items stay, without the mark.
 */

export interface AttentionOverlayProps {
  width: number;
  height: number;
  cursor: number;
}

const REASONS: Record<string, string> = {
  stopped: "stream stopped",
  silent: "stream silent",
};

/**
 * Room for "(just now)" … "(2d 5h ago)": the columns after the age stay put as it changes
 * from one reading to the next.
 */
const AGE_COLUMN = 12;

function Item({
  item,
  name,
  shownId,
  selected,
  age,
  width,
}: {
  item: AttentionItem;
  name: string;
  /** The session's id as drawn (its display copy): the item's id is its identity. */
  shownId: string;
  selected: boolean;
  age: string;
  width: number;
}) {
  const theme = useTheme();
  const badge = stateBadge(item.reason);
  const reason = REASONS[item.reason] ?? `${badge.glyph} ${badge.text}`;
  return (
    <Box height={1} width={width}>
      <Text wrap="truncate-end" inverse={selected} dimColor={item.seen && theme.dim}>
        <Text color={theme.c.error} bold>
          {item.seen ? "  " : "! "}
        </Text>
        <Text bold>{shownId}</Text>
        <Text color={theme.c[badge.color]}>{`  ${reason.padEnd(16)}`}</Text>
        <Text color={theme.c.muted}>
          {` since ${formatTime(item.since)} ${`(${age})`.padEnd(AGE_COLUMN)} · ${item.source}`}
        </Text>
        <Text>{name ? `  ${name}` : ""}</Text>
        <Text color={theme.c.muted}>
          {item.message && !item.message.startsWith("session ") ? ` — ${item.message}` : ""}
        </Text>
      </Text>
    </Box>
  );
}

export const AttentionOverlay = memo(function AttentionOverlay({
  width,
  height,
  cursor,
}: AttentionOverlayProps) {
  const { attention, sessions } = useServices();
  const theme = useTheme();
  const items = useStore(attention, (s) => s.items);
  const records = useStore(sessions, (s) => s.items);
  const rows = detailRows(height);
  const at = Math.min(cursor, Math.max(0, items.length - 1));
  const start = listWindowStart(at, items.length, rows);
  const shown = items.slice(start, start + rows);
  const ages = useTicked(
    (now) => shown.map((i) => formatAge(now - i.since)).join("\n"),
    attention.subscribe,
  ).split("\n");
  const unseen = items.filter((i) => !i.seen).length;
  const recordOf = (id: string) => records.find((x) => x.session_id === id);
  return (
    <OverlayFrame
      width={width}
      height={height}
      title={`Attention · ${unseen} new, ${items.length} in all`}
      note={` — newest first · ${keyOf("open")} goes to it · ${keyOf("attentionQueue")} or ${keyOf("cancel")} closes`}
    >
      {items.length === 0 ? (
        <Text color={theme.c.muted}>No session needs attention.</Text>
      ) : (
        shown.map((item, i) => (
          <Item
            key={`${item.sessionId}:${item.reason}`}
            item={item}
            name={sessionName(recordOf(item.sessionId) ?? {}) ?? ""}
            shownId={displayId(recordOf(item.sessionId) ?? item.sessionId)}
            selected={start + i === at}
            age={ages[i] ?? ""}
            width={Math.max(10, width - 4)}
          />
        ))
      )}
    </OverlayFrame>
  );
});
