import { Box, Text } from "ink";
import { useStore } from "zustand";
import type { ReviewStore } from "../../../store/review/reviewStore.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";

/**
 * A session's file read-only, with line numbers: only the rows on screen are drawn (already
 * sanitized and stripped of the key by the review store), the key masked again over the
 * window as one sequence. A binary file is named, never shown.
 */
export function WholeFile({
  store,
  offset,
  rows,
  width,
}: {
  store: ReviewStore;
  offset: number;
  rows: number;
  width: number;
}) {
  const theme = useTheme();
  const { secrets } = useServices();
  const whole = useStore(store, (s) => s.whole);
  if (whole.loading) return <Text color={theme.c.muted}>reading the file…</Text>;
  if (whole.error)
    return <Text color={theme.c.error}>{`Reading it failed: ${whole.error.message}`}</Text>;
  const f = whole.value;
  if (!f) return null;
  if (f.binary) {
    return (
      <Text color={theme.c.warn}>{`${f.path}: binary file (${f.size} bytes), not shown`}</Text>
    );
  }
  const gutter = String(f.lines.length).length;
  const shown = f.lines.slice(offset, offset + rows);
  const masked = secrets ? secrets.maskRows(shown) : shown;
  return (
    <Box flexDirection="column" width={width}>
      {masked.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions on screen
        <Text key={i} wrap="truncate-end">
          <Text color={theme.c.muted}>{`${String(offset + i + 1).padStart(gutter)} │ `}</Text>
          <Text>{l}</Text>
        </Text>
      ))}
    </Box>
  );
}
