import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../../context/theme.js";

/** A centred, bordered box in the body area; it never grows past the space it is given. */
export function DialogFrame({
  title,
  width,
  height,
  tone = "accent",
  children,
}: {
  title: string;
  width: number;
  height: number;
  tone?: "accent" | "warn" | "error";
  children: ReactNode;
}) {
  const theme = useTheme();
  const boxWidth = Math.min(width, Math.max(40, Math.min(78, width - 4)));
  return (
    <Box
      width={width}
      height={height}
      justifyContent="center"
      alignItems="flex-start"
      overflow="hidden"
    >
      <Box
        width={boxWidth}
        flexDirection="column"
        borderStyle="round"
        borderColor={theme.c[tone]}
        paddingX={1}
        overflow="hidden"
        flexShrink={1}
      >
        <Box height={1}>
          <Text bold color={theme.c[tone]} wrap="truncate-end">
            {title}
          </Text>
        </Box>
        {children}
      </Box>
    </Box>
  );
}

export function dialogInnerWidth(width: number): number {
  return Math.min(width, Math.max(40, Math.min(78, width - 4))) - 4;
}
