import { Text } from "ink";
import { charWidth, displayWidth } from "../../../text/wrap.js";
import { type ColorName, useTheme } from "../../context/theme.js";
import { borderTitleRoom } from "../../model/geometry.js";

/**
 * A box's top border with a title in it ("┌─ title ─────┐"), drawn by hand because Ink has
 * no border titles; it saves a row per pane. The title is cut to fit, never wrapped.
 */

export type BorderKind = "single" | "double" | "bold" | "round";

const CORNERS: Record<BorderKind, { left: string; line: string; right: string }> = {
  single: { left: "┌", line: "─", right: "┐" },
  double: { left: "╔", line: "═", right: "╗" },
  bold: { left: "┏", line: "━", right: "┓" },
  round: { left: "╭", line: "─", right: "╮" },
};

export interface Segment {
  text: string;
  color?: ColorName | undefined;
  bold?: boolean;
  inverse?: boolean;
}

/** Segments cut to at most `max` cells, the last cut one ending in "…". */
export function fitSegments(segments: readonly Segment[], max: number): Segment[] {
  const out: Segment[] = [];
  let used = 0;
  for (const s of segments) {
    const w = displayWidth(s.text);
    if (used + w <= max) {
      out.push(s);
      used += w;
      continue;
    }
    const room = max - used - 1;
    let text = "";
    let col = 0;
    for (const ch of s.text) {
      const cw = charWidth(ch.codePointAt(0) ?? 0);
      if (col + cw > room) break;
      text += ch;
      col += cw;
    }
    if (room >= 0) out.push({ ...s, text: `${text}…` });
    break;
  }
  return out;
}

export function BorderTitle({
  segments,
  width,
  kind,
  color,
}: {
  segments: readonly Segment[];
  width: number;
  kind: BorderKind;
  color: string | undefined;
}) {
  const theme = useTheme();
  const c = CORNERS[kind];
  const room = borderTitleRoom(width);
  const fitted = fitSegments(segments, room);
  const used = fitted.reduce((n, s) => n + displayWidth(s.text), 0);
  const fill = Math.max(0, used > 0 ? room - used : width - 3);
  return (
    <Text wrap="truncate-end">
      <Text color={color}>{`${c.left}${c.line}${used > 0 ? " " : c.line}`}</Text>
      {fitted.map((s, i) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: positional pieces of one title
          key={i}
          color={s.color ? theme.c[s.color] : undefined}
          bold={s.bold}
          inverse={s.inverse}
        >
          {s.text}
        </Text>
      ))}
      <Text color={color}>{`${used > 0 ? " " : ""}${c.line.repeat(fill)}${c.right}`}</Text>
    </Text>
  );
}
