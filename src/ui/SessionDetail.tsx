import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useServices } from "./services.js";
import { useTheme } from "./theme.js";

/** Every field of one session record, as the service sent it (sanitized at the store). */

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
  const { sessions } = useServices();
  const theme = useTheme();
  const record = useStore(sessions, (s) => s.items.find((x) => x.session_id === sessionId));
  const entries = record ? Object.entries(record) : [];
  // A loop, not a spread: a record may have more fields than a call has room for arguments.
  let keyWidth = 4;
  for (const [k] of entries) if (k.length > keyWidth) keyWidth = Math.min(24, k.length);
  const rows = Math.max(1, height - 3);
  const shown = entries.slice(offset, offset + rows);
  return (
    <Box
      width={width}
      height={height}
      flexDirection="column"
      borderStyle="round"
      borderColor={theme.c.accent}
      paddingX={1}
      overflow="hidden"
    >
      <Box height={1}>
        <Text wrap="truncate-end">
          <Text bold>{`Session ${sessionId}`}</Text>
          <Text color={theme.c.muted}>{` — ${entries.length} fields · Esc or i closes`}</Text>
        </Text>
      </Box>
      {record ? (
        shown.map(([k, v]) => (
          <Box key={k} height={1}>
            <Text wrap="truncate-end">
              <Text color={theme.c.accent}>{k.padEnd(keyWidth)}</Text>
              <Text>{`  ${valueText(v)}`}</Text>
            </Text>
          </Box>
        ))
      ) : (
        <Text color={theme.c.muted}>This session is no longer in the list.</Text>
      )}
    </Box>
  );
});
