import { Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { sessionName } from "../../../protocol/resources.js";
import { displayId } from "../../../store/admitSession.js";
import type { AttentionItem } from "../../../store/attention/queue.js";
import { REASON_GLYPH } from "../../../store/attention/reasons.js";
import { formatAge, formatTime } from "../../../text/format.js";
import { useServices } from "../../context/servicesContext.js";
import { REASON_COLOR, useTheme } from "../../context/theme.js";
import { useTicked } from "../../hooks/useNow.js";
import { detailRows } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import { listWindowStart } from "../../model/layout.js";
import { FramedBox } from "../frame/FramedBox.js";
import { ScrollList, scrollWindow } from "../frame/ScrollList.js";

/**
 * The attention queue: every session that needs the user, newest first by the service's time
 * for each cause, with the reason named (store/attention/reasons.ts) and since when, one item
 * per session. What does not notify (a pause, a destruction) is dimmed; seen items stay,
 * without the `!` of what is new (their row keeps its mark while the cause stands).
 */

export interface AttentionOverlayProps {
  width: number;
  height: number;
  cursor: number;
}

function Item({
  item,
  name,
  shownId,
  selected,
  age,
}: {
  item: AttentionItem;
  name: string;
  /** The session's id as drawn (its display copy): the item's id is its identity. */
  shownId: string;
  selected: boolean;
  age: string;
}) {
  const theme = useTheme();
  const color = REASON_COLOR[item.reason];
  // What does not notify (a pause, a destruction) is shown dimmed: there, not calling.
  const quiet = item.seen || !item.notify;
  return (
    <Text wrap="truncate-end" inverse={selected} dimColor={quiet && theme.dim}>
      <Text color={theme.c.error} bold>
        {item.seen || !item.notify ? "  " : "! "}
      </Text>
      <Text color={theme.c[color]}>{`${REASON_GLYPH[item.reason]} `}</Text>
      <Text bold>{shownId}</Text>
      <Text>{name ? `  ${name}` : ""}</Text>
      <Text color={theme.c[color]}>{`  ${item.message}`}</Text>
      <Text color={theme.c.muted}>{`  since ${formatTime(item.since)} (${age})`}</Text>
    </Text>
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
  const { from: start, shown } = scrollWindow(items, rows, listWindowStart(at, items.length, rows));
  const ages = useTicked(
    (now) => shown.map((i) => formatAge(now - i.since)).join("\n"),
    attention.subscribe,
  ).split("\n");
  const unseen = items.filter((i) => !i.seen && i.notify).length;
  const partial = useStore(attention, (s) => s.partial);
  const recordOf = (id: string) => records.find((x) => x.session_id === id);
  return (
    <FramedBox
      width={width}
      height={height}
      title={`Attention · ${unseen} new, ${items.length} in all${partial ? " (partial)" : ""}`}
      note={` — newest first · ${keyOf("open")} goes to it · ${keyOf("attentionQueue")} or ${keyOf("cancel")} closes`}
    >
      {partial ? <Text color={theme.c.warn}>{`partial: ${partial}`}</Text> : null}
      {items.length === 0 ? (
        <Text color={theme.c.muted}>No session needs attention.</Text>
      ) : (
        <ScrollList
          items={items}
          rows={rows}
          top={start}
          width={Math.max(10, width - 4)}
          rowKey={(item) => `${item.sessionId}:${item.reason}`}
          render={(item, i) => (
            <Item
              item={item}
              name={sessionName(recordOf(item.sessionId) ?? {}) ?? ""}
              shownId={displayId(recordOf(item.sessionId) ?? item.sessionId)}
              selected={i === at}
              age={ages[i - start] ?? ""}
            />
          )}
        />
      )}
    </FramedBox>
  );
});
