import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { formatElapsed } from "../../../text/format.js";
import { useServices } from "../../context/servicesContext.js";
import { type ColorName, useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { useNow } from "../../hooks/useNow.js";
import { ReplayBar } from "./ReplayBar.js";

/**
 * One line above the key hints: the running git action (spinner, elapsed time), else the
 * latest message, else how the last action ended (the server's error verbatim).
 */

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const LEVEL_COLORS: Record<string, ColorName> = {
  info: "muted",
  ok: "ok",
  warn: "warn",
  error: "error",
};
const ACTION_NAMES: Record<string, string> = {
  clone: "clone",
  push: "push",
  branch: "branch",
  pr: "pull request",
};

export const StatusLine = memo(function StatusLine({ width }: { width: number }) {
  const { actions, replay } = useServices();
  const { ui } = useUi();
  const theme = useTheme();
  const running = useStore(actions, (s) => s.running);
  const last = useStore(actions, (s) => s.last);
  const message = useStore(ui, (s) => s.message);
  const jumping = useStore(ui, (s) => s.editing?.kind === "jump");
  const now = useNow(100, running !== null);
  if (replay && (jumping || (!running && !message))) {
    return <ReplayBar replay={replay} width={width} />;
  }

  let content: React.ReactNode = " ";
  if (running) {
    const elapsed = Math.max(0, now - running.startedAt);
    const frame = SPINNER[Math.floor(elapsed / 100) % SPINNER.length];
    content = (
      <Text color={theme.c.accent}>
        {`${frame} ${ACTION_NAMES[running.kind] ?? running.kind} on ${running.sessionId}… ${formatElapsed(elapsed)}`}
      </Text>
    );
  } else if (message) {
    content = <Text color={theme.c[LEVEL_COLORS[message.level] ?? "muted"]}>{message.text}</Text>;
  } else if (last) {
    const name = ACTION_NAMES[last.kind] ?? last.kind;
    const took = formatElapsed(last.finishedAt - last.startedAt);
    content = last.ok ? (
      <Text color={theme.c.ok}>{`✓ ${name} ${last.sessionId}: ${last.message} (${took})`}</Text>
    ) : (
      <Text color={theme.c.error}>
        {`✗ ${name} ${last.sessionId} failed: ${last.message}`}
        {last.error?.requiredScope ? ` (needs ${last.error.requiredScope})` : ""}
        {last.error?.hint ? ` — ${last.error.hint}` : ""}
      </Text>
    );
  }
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate-end">{content}</Text>
    </Box>
  );
});
