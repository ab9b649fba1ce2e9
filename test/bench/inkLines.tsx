/**
 * The reference rows' drawing (B8-ink, B10-ink): a frame the app drew, recorded, drawn again
 * by Ink alone as one `<Text>` per line in a column `<Box>`, so that Ink tokenizes, lays out
 * and writes the same cells with the same styles, and nothing of the app runs.
 */
import { Box, render, Text } from "ink";
import { useState } from "react";

export interface FrameLinesProps {
  /** The frame drawn first. */
  initial: readonly string[];
  /** Gets the function that draws another frame (B10-ink's replay). */
  onShow?: (show: (lines: readonly string[]) => void) => void;
}

/** A row is its position on the screen (keyed by its number); an empty `<Text>` takes no height, so a blank row is one space (Ink trims it again). */
export function FrameLines({ initial, onShow }: FrameLinesProps) {
  const [lines, setLines] = useState(initial);
  onShow?.(setLines);
  return (
    <Box flexDirection="column">
      {lines.map((line, row) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions on the screen
        <Text key={row}>{line === "" ? " " : line}</Text>
      ))}
    </Box>
  );
}

/** Draws `lines` on the process's terminal with Ink, rendered as src/cli/tui/runTui.tsx renders. */
export function drawFrame(lines: readonly string[]): void {
  render(<FrameLines initial={lines} />, { exitOnCtrlC: false, patchConsole: false });
}
