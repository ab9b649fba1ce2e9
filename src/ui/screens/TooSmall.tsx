import { Text } from "ink";
import { Centered } from "../components/chrome/Centered.js";
import { useTheme } from "../context/theme.js";
import { keyOf } from "../model/keymap.js";
import { MIN_COLUMNS, MIN_ROWS, type TerminalSize } from "../model/layout.js";

/** Instead of a broken layout: what the size is, what it needs to be. */
export function TooSmall({ size }: { size: TerminalSize }) {
  const theme = useTheme();
  return (
    <Centered size={size}>
      <Text bold color={theme.c.warn} wrap="truncate-end">
        Terminal too small
      </Text>
      <Text wrap="truncate-end">{`${size.columns}×${size.rows}, needs ${MIN_COLUMNS}×${MIN_ROWS}`}</Text>
      <Text color={theme.c.muted} wrap="truncate-end">
        {`Enlarge the window · ${keyOf("quit")} quits`}
      </Text>
    </Centered>
  );
}
