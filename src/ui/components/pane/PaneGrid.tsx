import { Box } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useUi } from "../../context/uiContext.js";
import { keyOf } from "../../model/keymap.js";
import type { PaneCell } from "../../model/layout.js";
import { Pane } from "./Pane.js";
import { ShellPane } from "./ShellPane.js";

/** The panes in their grid (or the zoomed one alone), sized by layout.ts. */

export interface PaneGridProps {
  panes: readonly string[];
  cells: readonly PaneCell[];
  /** 1-based focused pane; 0 when the list has focus. */
  focus: number;
  /** Panes not shown for lack of room (the terminal is too small for the grid). */
  hiddenPanes: number;
  width: number;
  height: number;
}

export const PaneGrid = memo(function PaneGrid({
  panes,
  cells,
  focus,
  hiddenPanes,
  width,
  height,
}: PaneGridProps) {
  const { ui } = useUi();
  const shells = useStore(ui, (s) => s.terminals);
  const rows: PaneCell[][] = [];
  for (const c of cells) {
    const row = rows[c.row] ?? [];
    row.push(c);
    rows[c.row] = row;
  }
  return (
    <Box width={width} height={height} flexDirection="column" overflow="hidden">
      {rows.map((row) => (
        <Box key={row[0]?.row ?? 0} flexDirection="row" height={row[0]?.height ?? 0}>
          {row.map((c) => {
            const id = panes[c.index];
            if (!id) return null;
            if (shells.includes(id)) {
              return (
                <ShellPane
                  key={`shell:${id}`}
                  sessionId={id}
                  number={c.index + 1}
                  width={c.width}
                  height={c.height}
                  focused={focus === c.index + 1}
                />
              );
            }
            return (
              <Pane
                key={id}
                sessionId={id}
                number={c.index + 1}
                width={c.width}
                height={c.height}
                focused={focus === c.index + 1}
                note={hiddenPanes > 0 ? `+${hiddenPanes} more (${keyOf("focusNext")})` : null}
              />
            );
          })}
        </Box>
      ))}
    </Box>
  );
});
