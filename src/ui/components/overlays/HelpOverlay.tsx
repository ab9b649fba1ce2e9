import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { helpNotes } from "../../model/gitActions.js";
import { HELP_COLUMN_GAP, helpLayout, missingNote } from "../../model/help.js";
import { keyOf } from "../../model/keymap.js";
import { FramedBox } from "../frame/FramedBox.js";
import { ScrollList, scrollNote } from "../frame/ScrollList.js";

/** The `?` overlay: every key of the keymap table, in columns, scrollable when it does not fit. */

export interface HelpOverlayProps {
  width: number;
  height: number;
  offset: number;
  /** The selected session's state: its keys that do not apply are greyed out, saying why. */
  sessionState?: string | null;
}

export const HelpOverlay = memo(function HelpOverlay({
  width,
  height,
  offset,
  sessionState = null,
}: HelpOverlayProps) {
  const { identity } = useServices();
  const theme = useTheme();
  const keyInfo = useStore(identity, (s) => s.keyInfo);
  const {
    lines,
    geometry: g,
    keysWidth: keyCol,
  } = helpLayout(width, height, helpNotes({ keyInfo }, sessionState));
  const from = Math.min(offset, g.maxOffset);
  const visible = lines.slice(from, from + g.columns * g.rowsPerColumn);
  const columns = Array.from({ length: g.columns }, (_, i) =>
    visible.slice(i * g.rowsPerColumn, (i + 1) * g.rowsPerColumn),
  );
  const scroll = scrollNote(g.maxOffset > 0, from < g.maxOffset);
  return (
    <FramedBox
      width={width}
      height={height}
      title="Keys"
      note={` — ${keyOf("help")} or ${keyOf("cancel")} closes${scroll}`}
    >
      <Box flexDirection="row" height={g.rowsPerColumn}>
        {columns.map((col, ci) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
          <Box key={ci} flexDirection="column" width={g.columnWidth}>
            <ScrollList
              items={col}
              rows={g.rowsPerColumn}
              top={0}
              width={g.columnWidth - HELP_COLUMN_GAP}
              render={(l, li) =>
                l.kind === "heading" ? (
                  <Text bold color={theme.c.accent} wrap="truncate-end">
                    {l.text}
                  </Text>
                ) : l.kind === "blank" ? (
                  <Text> </Text>
                ) : (
                  <Text wrap="truncate-end">
                    <Text bold color={l.missing ? theme.c.muted : undefined}>
                      {l.keys.padEnd(keyCol)}
                    </Text>
                    <Text color={l.missing ? theme.c.muted : undefined}>{l.text}</Text>
                    {l.missing && col[li + 1]?.kind !== "more" ? (
                      <Text color={theme.c.warn}>{missingNote(l.missing)}</Text>
                    ) : null}
                  </Text>
                )
              }
            />
          </Box>
        ))}
      </Box>
    </FramedBox>
  );
});
