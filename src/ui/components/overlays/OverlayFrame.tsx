import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../../context/theme.js";

/** An overlay over the whole body: a bordered box with a title line, never growing past it. */
export function OverlayFrame({
  width,
  height,
  title,
  note,
  children,
}: {
  width: number;
  height: number;
  title: string;
  /** Muted, after the title: what the overlay holds and which keys close or scroll it. */
  note: string;
  children: ReactNode;
}) {
  const theme = useTheme();
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
          <Text bold>{title}</Text>
          <Text color={theme.c.muted}>{note}</Text>
        </Text>
      </Box>
      {children}
    </Box>
  );
}
