import { Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { displayId } from "../../../store/admitSession.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { useTicked } from "../../hooks/useNow.js";
import { detailNotes } from "../../model/detailNotes.js";
import { detailRows } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import { detailView } from "../../model/sessionDetail.js";
import { FramedBox } from "../frame/FramedBox.js";
import { ScrollList } from "../frame/ScrollList.js";

/**
 * Every field of one session record, as the service sent it (sanitized at the store): the
 * documented ones first, then any other, unknown ones included; below them the API routes in
 * use (model/sessionDetail.ts decides what each line says).
 */

export interface SessionDetailProps {
  sessionId: string;
  width: number;
  height: number;
  offset: number;
}

/** The ages beside times change in these steps (formatAgeCoarse's finest). */
const AGE_STEP_MS = 5000;

export const SessionDetail = memo(function SessionDetail({
  sessionId,
  width,
  height,
  offset,
}: SessionDetailProps) {
  const { sessions, routes, attention, overlaps } = useServices();
  const theme = useTheme();
  const record = useStore(sessions, (s) => selectRecord(s, sessionId));
  const items = useStore(attention, (s) => s.items);
  const overlap = useStore(overlaps, (s) => s.bySession.get(sessionId));
  const now = useTicked((t) => Math.floor(t / AGE_STEP_MS) * AGE_STEP_MS);
  const { lines, fields } = record
    ? detailView(record, routes ?? null, now, detailNotes(items, overlap, sessionId))
    : { lines: [], fields: 0 };
  // A loop, not a spread: a record may have more fields than a call has room for arguments.
  let keyWidth = 4;
  for (const l of lines) {
    if ((l.kind === "field" || l.kind === "note") && l.key.length > keyWidth) {
      keyWidth = l.key.length;
    }
  }
  keyWidth = Math.min(24, keyWidth);
  const rows = detailRows(height);
  return (
    <FramedBox
      width={width}
      height={height}
      title={`Session ${displayId(record ?? sessionId)}`}
      note={` — ${Math.max(0, fields)} fields · ${keyOf("cancel")} or ${keyOf("detail")} closes`}
    >
      {record ? (
        <ScrollList
          items={lines}
          rows={rows}
          top={offset}
          // Keys of fields are unique; a heading or blank line is keyed by its place.
          rowKey={(l, i) => (l.kind === "field" ? `f:${l.key}` : `${l.kind}:${i}`)}
          render={(l) =>
            l.kind === "blank" ? (
              <Text> </Text>
            ) : l.kind === "heading" ? (
              <Text wrap="truncate-end">
                <Text bold color={theme.c.accent}>
                  {l.key}
                </Text>
                <Text color={theme.c.muted}>{`  ${l.value}`}</Text>
              </Text>
            ) : (
              <Text wrap="truncate-end">
                <Text color={theme.c.accent}>{l.key.padEnd(keyWidth)}</Text>
                <Text>{`  ${l.value}`}</Text>
              </Text>
            )
          }
        />
      ) : (
        <Text color={theme.c.muted}>This session is no longer in the list.</Text>
      )}
    </FramedBox>
  );
});
