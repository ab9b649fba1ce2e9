import { Box, Text } from "ink";
import { memo } from "react";
import { useTheme } from "../../context/theme.js";
import type { ActLine } from "../../model/actLines.js";

/** The lines under a pane's timeline about acting on its session (model/actLines.ts). */
export const ActPanel = memo(function ActPanel({
  lines,
  width,
}: {
  lines: readonly ActLine[];
  width: number;
}) {
  const theme = useTheme();
  if (lines.length === 0) return null;
  return (
    <Box flexDirection="column" width={width} height={lines.length} flexShrink={0}>
      {lines.map((l, i) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
          key={i}
          wrap="truncate-end"
          bold={l.bold ?? false}
          color={l.tone === "plain" ? undefined : theme.c[l.tone]}
        >
          {l.text === "" ? " " : l.text}
        </Text>
      ))}
    </Box>
  );
});
