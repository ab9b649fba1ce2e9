import { Box } from "ink";
import type { ReactNode } from "react";
import { frameRows, type TerminalSize } from "../../model/layout.js";

/** A whole screen with its content in the middle (login, a terminal too small). */
export function Centered({ size, children }: { size: TerminalSize; children: ReactNode }) {
  return (
    <Box
      width={size.columns}
      height={frameRows(size)}
      flexDirection="column"
      justifyContent="center"
      alignItems="center"
      overflow="hidden"
    >
      {children}
    </Box>
  );
}
