import { Text } from "ink";
import { memo, useEffect } from "react";
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { TerminalPanesState } from "../../../store/terminal/terminalPanes.js";
import {
  ATTR,
  type Colour,
  DEFAULT_COLOUR,
  rgbOf,
  type Segment,
} from "../../../text/terminal/cells.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { keyOf } from "../../model/keymap.js";
import { paneBody } from "../../model/layout.js";
import { PaneFrame } from "./PaneFrame.js";

/**
 * A session's shell in its pane: the emulator's cells (store/terminal/terminalPanes.ts),
 * drawn with Ink's own colours from their attributes; no byte of the shell's output is
 * printed as it came. The bottom line says what the connection does, how far the view is
 * scrolled back, and how to give the keys back.
 */

export interface ShellPaneProps {
  sessionId: string;
  number: number;
  width: number;
  height: number;
  focused: boolean;
}

const NAMES = [
  "black",
  "red",
  "green",
  "yellow",
  "blue",
  "magenta",
  "cyan",
  "white",
  "blackBright",
  "redBright",
  "greenBright",
  "yellowBright",
  "blueBright",
  "magentaBright",
  "cyanBright",
  "whiteBright",
];

/** A cell colour as Ink takes it (a name, ansi256(n) or #rrggbb); undefined: the default. */
export function inkColour(c: Colour): string | undefined {
  if (c === DEFAULT_COLOUR) return undefined;
  const rgb = rgbOf(c);
  if (rgb !== null) return `#${rgb.toString(16).padStart(6, "0")}`;
  return NAMES[c] ?? `ansi256(${c})`;
}

const NONE = createStore<TerminalPanesState>()(() => ({ terms: {} }));

function SegmentText({ s, noColor }: { s: Segment; noColor: boolean }) {
  const fg = noColor ? undefined : inkColour(s.fg);
  const bg = noColor ? undefined : inkColour(s.bg);
  return (
    <Text
      {...(fg ? { color: fg } : {})}
      {...(bg ? { backgroundColor: bg } : {})}
      bold={(s.attrs & ATTR.bold) !== 0}
      dimColor={(s.attrs & ATTR.dim) !== 0}
      italic={(s.attrs & ATTR.italic) !== 0}
      underline={(s.attrs & ATTR.underline) !== 0}
      inverse={(s.attrs & ATTR.inverse) !== 0}
      strikethrough={(s.attrs & ATTR.strike) !== 0}
    >
      {s.text}
    </Text>
  );
}

/** The cursor's cell drawn inverse: the row's segments split around column x. */
function withCursor(row: readonly Segment[], x: number): Segment[] {
  const out: Segment[] = [];
  let col = 0;
  for (const s of row) {
    const chars = Array.from(s.text);
    if (x >= col && x < col + chars.length) {
      const i = x - col;
      if (i > 0) out.push({ ...s, text: chars.slice(0, i).join("") });
      out.push({ ...s, text: chars[i] ?? " ", attrs: s.attrs ^ ATTR.inverse });
      if (i + 1 < chars.length) out.push({ ...s, text: chars.slice(i + 1).join("") });
    } else out.push(s);
    col += chars.length;
  }
  return out;
}

export const ShellPane = memo(function ShellPane({
  sessionId,
  number,
  width,
  height,
  focused,
}: ShellPaneProps) {
  const { terminals } = useServices();
  const { ui } = useUi();
  const theme = useTheme();
  const term = useStore(terminals ?? NONE, (s) => s.terms[sessionId]);
  const body = paneBody({ width, height });
  const cols = body.width;
  const rows = Math.max(1, body.rows - 1);
  useEffect(() => {
    terminals?.resize(sessionId, cols, rows);
  }, [terminals, sessionId, cols, rows]);
  const screen = terminals?.screenOf(sessionId);
  const scrolledBack = term?.scrolledBack ?? 0;
  const view = screen ? screen.view(scrolledBack) : [];
  const cursor = screen?.cursor;
  const dropped = screen?.dropped.bytes ?? 0;
  const scrollMode = useStore(ui, (s) =>
    s.shellScroll?.sessionId === sessionId ? s.shellScroll : null,
  );
  const status = term?.status
    ? term.status
    : scrollMode?.draft != null
      ? `search: ${scrollMode.draft}▏ (Enter finds, Esc cancels)`
      : scrollMode
        ? `scroll mode · ${scrolledBack} lines back · ${keyOf("terminalFind")} search · ${keyOf("terminalFindOlder")}/${keyOf("terminalFindNewer")} next/previous · ${keyOf("terminalLive")} back to the shell`
        : focused
          ? `shell · keys go to the shell · ${keyOf("leaveTerminal")} gives them back · ${keyOf("terminalScrollUp")} scroll mode (search)`
          : `shell · ${keyOf("focusNext")} or ${number} focuses it`;
  const said =
    dropped > 0 ? `${status} · ${dropped} bytes of output dropped (too fast to draw)` : status;
  return (
    <PaneFrame
      sessionId={sessionId}
      number={number}
      width={width}
      height={height}
      focused={focused}
      note="shell"
    >
      {Array.from({ length: rows }, (_, y) => {
        const row = view[y] ?? [];
        const drawn =
          focused && cursor?.visible && scrolledBack === 0 && cursor.y === y
            ? withCursor(row, cursor.x)
            : row;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are screen positions
          <Text key={y} wrap="truncate">
            {drawn.map((s, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: segments are positions in the row
              <SegmentText key={i} s={s} noColor={theme.noColor} />
            ))}
          </Text>
        );
      })}
      <Text wrap="truncate" color={term?.status ? theme.c.warn : theme.c.muted}>
        {said.slice(0, cols)}
      </Text>
    </PaneFrame>
  );
});
