import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { type ColorName, useTheme } from "../../context/theme.js";

/** How wide a centred box is in a body `width` cells wide. */
function centredWidth(width: number): number {
  return Math.min(width, Math.max(40, Math.min(78, width - 4)));
}

/** Text width inside a centred box (its border and padding taken off). */
export function dialogInnerWidth(width: number): number {
  return centredWidth(width) - 4;
}

/**
 * The one framed box of the UI: a rounded border, a title line, the content, never growing past
 * the space it is given. An overlay fills the body (`centred` false): its title is bold and a
 * muted note follows it (what it holds, which keys close or scroll it). A dialog is `centred`,
 * at most 78 cells wide, its border and title in its tone.
 */
export function FramedBox({
  width,
  height,
  title,
  note,
  tone = "accent",
  centred = false,
  cutToWidth = false,
  children,
}: {
  width: number;
  height: number;
  title: string;
  note?: string;
  tone?: Extract<ColorName, "accent" | "warn" | "error">;
  centred?: boolean;
  /**
   * Every line of the children is cut to the box's width already: only rows are clipped. A
   * clip across the width makes Ink slice every line the box holds again on every frame.
   */
  cutToWidth?: boolean;
  children: ReactNode;
}) {
  const theme = useTheme();
  const box = (
    <Box
      width={centred ? centredWidth(width) : width}
      {...(centred ? { flexShrink: 1 } : { height })}
      flexDirection="column"
      borderStyle="round"
      borderColor={theme.c[tone]}
      paddingX={1}
      {...(cutToWidth ? { overflowY: "hidden" as const } : { overflow: "hidden" as const })}
    >
      <Box height={1}>
        <Text wrap="truncate-end">
          <Text bold {...(centred ? { color: theme.c[tone] } : {})}>
            {title}
          </Text>
          {note !== undefined ? <Text color={theme.c.muted}>{note}</Text> : null}
        </Text>
      </Box>
      {children}
    </Box>
  );
  if (!centred) return box;
  return (
    <Box
      width={width}
      height={height}
      justifyContent="center"
      alignItems="flex-start"
      overflow="hidden"
    >
      {box}
    </Box>
  );
}
