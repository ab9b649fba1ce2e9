import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import type { Session } from "../../../protocol/resources.js";
import { displayId } from "../../../store/admitSession.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { detailNotes } from "../../model/detailNotes.js";
import { detailRows } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import { OverlayFrame } from "./OverlayFrame.js";

/**
 * Every field of one session record, as the service sent it (sanitized at the store): the
 * documented ones first, then any other, unknown ones included.
 */

const FIRST = [
  "id",
  "session_id",
  "name",
  "title",
  "state",
  "agent",
  "template_id",
  "visibility",
  "sandbox_url",
  "repo",
  "branch",
  "user_id",
  "organization_id",
  "created_at",
  "updated_at",
];

/**
 * The record's fields in display order, the id as its display copy; the session_id the client
 * adds to an `id` record is left out.
 */
export function detailEntries(record: Session): [string, unknown][] {
  const shownId = displayId(record);
  const all: [string, unknown][] = [];
  for (const [k, v] of Object.entries(record)) {
    if (k !== "session_id") all.push([k, v]);
    else if (record.id !== shownId) all.push([k, shownId]);
  }
  const rank = (k: string) => {
    const i = FIRST.indexOf(k);
    return i === -1 ? FIRST.length : i;
  };
  return all.sort(([a], [b]) => rank(a) - rank(b));
}

export interface SessionDetailProps {
  sessionId: string;
  width: number;
  height: number;
  offset: number;
}

function valueText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "—";
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export const SessionDetail = memo(function SessionDetail({
  sessionId,
  width,
  height,
  offset,
}: SessionDetailProps) {
  const { sessions, attention, overlaps } = useServices();
  const theme = useTheme();
  const record = useStore(sessions, (s) => selectRecord(s, sessionId));
  const items = useStore(attention, (s) => s.items);
  const overlap = useStore(overlaps, (s) => s.bySession.get(sessionId));
  // Why it needs you and who else changes its files come first (a row only has room for a mark).
  const notes = detailNotes(items, overlap, sessionId);
  const entries = record ? [...notes, ...detailEntries(record)] : [];
  // A loop, not a spread: a record may have more fields than a call has room for arguments.
  let keyWidth = 4;
  for (const [k] of entries) if (k.length > keyWidth) keyWidth = Math.min(24, k.length);
  const rows = detailRows(height);
  const shown = entries.slice(offset, offset + rows);
  return (
    <OverlayFrame
      width={width}
      height={height}
      title={`Session ${displayId(record ?? sessionId)}`}
      note={` — ${entries.length - notes.length} fields · ${keyOf("cancel")} or ${keyOf("detail")} closes`}
    >
      {record ? (
        shown.map(([k, v]) => (
          <Box key={`${k}:${valueText(v)}`} height={1}>
            <Text wrap="truncate-end">
              <Text color={theme.c.accent}>{k.padEnd(keyWidth)}</Text>
              <Text>{`  ${valueText(v)}`}</Text>
            </Text>
          </Box>
        ))
      ) : (
        <Text color={theme.c.muted}>This session is no longer in the list.</Text>
      )}
    </OverlayFrame>
  );
});
