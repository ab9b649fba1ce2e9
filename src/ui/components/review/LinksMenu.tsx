import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { NO_REVIEW } from "../../../store/review/reviewStore.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { keyOf } from "../../model/keymap.js";
import { linkItems } from "../../model/review.js";
import type { LinksOverlayState } from "../../model/uiStore.js";
import { FramedBox } from "../frame/FramedBox.js";

/**
 * The links menu: the session's preview, pull request and sandbox URLs and its id, then the
 * ports its workspace listens on; Enter opens, c copies (OSC 52, written by this client).
 */
export const LinksMenu = memo(function LinksMenu({
  overlay: o,
  width,
  height,
}: {
  overlay: LinksOverlayState;
  width: number;
  height: number;
}) {
  const { review, sessions, actions, secrets } = useServices();
  const theme = useTheme();
  const record = useStore(sessions, (s) => selectRecord(s, o.sessionId));
  const history = useStore(actions, (s) => s.history);
  const ports = useStore(
    review?.store ?? NO_REVIEW,
    useShallow((s) => ({ mine: s.sessionId === o.sessionId, ports: s.ports })),
  );
  const items = linkItems(o.sessionId, record, history, ports.mine ? ports.ports.value : null);
  const shown = items.map((x) => `${x.label.padEnd(14)}${x.shown}`);
  const masked = secrets ? secrets.maskRows(shown) : shown;
  const portsNote =
    !ports.mine || ports.ports.loading
      ? "reading the detected ports…"
      : ports.ports.error
        ? `ports: ${ports.ports.error.message}`
        : (ports.ports.value?.length ?? 0) === 0
          ? "no port detected in the workspace"
          : "";
  return (
    <FramedBox
      width={width}
      height={height}
      title={`Links of ${o.sessionId}`}
      note={` — ${keyOf("reviewOpen")} opens in the browser · ${keyOf("copyLink")} copies · ${keyOf("cancel")} closes`}
    >
      <Box flexDirection="column">
        {masked.map((t, i) => (
          <Text key={items[i]?.label ?? i} wrap="truncate-end" inverse={i === o.cursor}>
            {`${i === o.cursor ? "›" : " "} ${t}`}
          </Text>
        ))}
        {portsNote ? (
          <Text color={ports.ports.error ? theme.c.error : theme.c.muted}>{portsNote}</Text>
        ) : null}
      </Box>
    </FramedBox>
  );
});
