import { Box, Text } from "ink";
import { useTheme } from "../context/theme.js";
import { frameRows, isTooSmall, type TerminalSize } from "../model/layout.js";
import { TooSmall } from "./TooSmall.js";

/**
 * The first frame, drawn while the client (and the HTTP library under it) still loads: the
 * header's profile and service with the connection pending, and the list's place saying it
 * is loading. The signed-in screen replaces it as soon as the services are built.
 */
export function StartingScreen(props: { profile: string; baseUrl: string; size: TerminalSize }) {
  const theme = useTheme();
  const { size } = props;
  if (isTooSmall(size)) return <TooSmall size={size} />;
  return (
    <Box width={size.columns} height={frameRows(size)} flexDirection="column" overflow="hidden">
      <Box borderStyle="round" borderColor={theme.c.muted} paddingX={1} flexDirection="column">
        <Text wrap="truncate-end">
          <Text bold>{props.profile}</Text>
          <Text color={theme.c.muted}>{` · ${props.baseUrl} · `}</Text>
          <Text color={theme.c.warn}>◌ connecting…</Text>
        </Text>
        <Text color={theme.c.muted} wrap="truncate-end">
          identity: asking the service…
        </Text>
      </Box>
      <Box borderStyle="round" borderColor={theme.c.muted} paddingX={1} flexGrow={1}>
        <Text color={theme.c.muted} wrap="truncate-end">
          loading sessions…
        </Text>
      </Box>
    </Box>
  );
}
