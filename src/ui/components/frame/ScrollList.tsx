import { Box } from "ink";
import type { ReactNode } from "react";
import { keyOf } from "../../model/keymap.js";

/** Where a window of `rows` rows over `total` starts, asked to start at `top`: kept in range. */
export function scrollTop(top: number, total: number, rows: number): number {
  return Math.max(0, Math.min(top, total - rows));
}

/** The rows of `items` a window of `rows` shows when asked to start at `top`. */
export function scrollWindow<T>(
  items: readonly T[],
  rows: number,
  top: number,
): { from: number; shown: readonly T[] } {
  const from = scrollTop(top, items.length, rows);
  return { from, shown: items.slice(from, from + rows) };
}

/** The note an overlay's title carries while its list scrolls. */
export function scrollNote(scrolls: boolean, moreBelow = false): string {
  if (!scrolls) return "";
  return ` · ${keyOf("down")}/${keyOf("up")} scroll${moreBelow ? " · more below" : ""}`;
}

/**
 * The one scrolling list of the overlays: `rows` one-line rows of `items` from `top` (kept in
 * range), each drawn by `render` with its index in the whole list.
 */
export function ScrollList<T>({
  items,
  rows,
  top,
  rowKey,
  render,
  width,
}: {
  items: readonly T[];
  rows: number;
  top: number;
  rowKey?: (item: T, index: number) => string;
  render: (item: T, index: number) => ReactNode;
  width?: number;
}) {
  const { from, shown } = scrollWindow(items, rows, top);
  return (
    <>
      {shown.map((item, i) => (
        <Box
          key={rowKey ? rowKey(item, from + i) : String(from + i)}
          height={1}
          {...(width !== undefined ? { width } : {})}
        >
          {render(item, from + i)}
        </Box>
      ))}
    </>
  );
}
