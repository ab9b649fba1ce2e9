import { Box } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../../context/theme.js";
import type { BorderKind } from "../chrome/BorderTitle.js";
import { PaneTitle } from "./PaneTitle.js";

/**
 * The one frame of a pane, a session's timeline (Pane) or its shell (ShellPane): the title
 * line (PaneTitle) and a border round the body, double when focused, bold in the error colour
 * when the session needs attention, single and muted otherwise.
 */
export function PaneFrame({
  sessionId,
  number,
  width,
  height,
  focused,
  attention = false,
  note = null,
  children,
}: {
  sessionId: string;
  /** 1-based pane number (the focus key). */
  number: number;
  width: number;
  height: number;
  focused: boolean;
  /** The session needs the user (a bold border in the error colour unless focused). */
  attention?: boolean;
  /** Shown in the title after the session. */
  note?: string | null;
  children: ReactNode;
}) {
  const theme = useTheme();
  const borderColor = attention ? theme.c.error : focused ? theme.c.focus : theme.c.muted;
  const border: BorderKind = focused ? "double" : attention ? "bold" : "single";
  return (
    <Box width={width} height={height} flexDirection="column" flexShrink={0} overflow="hidden">
      <PaneTitle
        sessionId={sessionId}
        number={number}
        focused={focused}
        width={width}
        border={border}
        borderColor={borderColor}
        note={note}
      />
      {/* Keyed by border: Ink re-applies a changed borderStyle without the borderTop={false}
          beside it, which would reserve an empty row. */}
      <Box
        key={border}
        width={width}
        height={height - 1}
        flexDirection="column"
        borderStyle={border}
        borderTop={false}
        borderColor={borderColor}
        overflow="hidden"
      >
        {children}
      </Box>
    </Box>
  );
}
