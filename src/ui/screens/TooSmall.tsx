import { Box, Text } from "ink";
import { useTheme } from "../context/theme.js";
import { frameRows, MIN_COLUMNS, MIN_ROWS, type TerminalSize } from "../model/layout.js";

/** Instead of a broken layout: what the size is, what it needs to be. */
export function TooSmall({ size }: { size: TerminalSize }) {
  const theme = useTheme();
  return (
    <Box
      width={size.columns}
      height={frameRows(size)}
      flexDirection="column"
      justifyContent="center"
      alignItems="center"
      overflow="hidden"
    >
      <Text bold color={theme.c.warn} wrap="truncate-end">
        Terminal too small
      </Text>
      <Text wrap="truncate-end">{`${size.columns}×${size.rows}, needs ${MIN_COLUMNS}×${MIN_ROWS}`}</Text>
      <Text color={theme.c.muted} wrap="truncate-end">
        Enlarge the window · q quits
      </Text>
    </Box>
  );
}
