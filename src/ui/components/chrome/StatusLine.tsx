import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { formatElapsed } from "../../../text/format.js";
import { charWidth, displayWidth } from "../../../text/wrap.js";
import { useServices } from "../../context/servicesContext.js";
import { type ColorName, useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { useNow } from "../../hooks/useNow.js";
import { actionName, outcomeText } from "../../model/gitActions.js";
import { keyOf } from "../../model/keymap.js";
import { ReplayBar } from "./ReplayBar.js";

/**
 * One line above the key hints: the running git action (spinner, elapsed time), else the
 * latest message, else how the last action ended (the server's error verbatim). A text too
 * long for the line is cut, and the cut says which key shows it whole (the messages log).
 */

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const LEVEL_COLORS: Record<string, ColorName> = {
  info: "muted",
  ok: "ok",
  warn: "warn",
  error: "error",
};

/** `text` cut to `width` cells; when cut, it ends by saying where the whole text is. */
export function fitStatus(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  const tail = `… (${keyOf("messages")}: whole message)`;
  const room = Math.max(0, width - displayWidth(tail));
  let out = "";
  let col = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0) ?? 0);
    if (col + w > room) break;
    out += ch;
    col += w;
  }
  return `${out.trimEnd()}${tail}`;
}

export const StatusLine = memo(function StatusLine({ width }: { width: number }) {
  const { actions, replay } = useServices();
  const { ui } = useUi();
  const theme = useTheme();
  const running = useStore(actions, (s) => s.running);
  const last = useStore(actions, (s) => s.last);
  const message = useStore(ui, (s) => s.message);
  const before = useStore(ui, (s) => s.outcomeBeforeMessage);
  // The newest of the last message and the last outcome is shown; the older never returns.
  const outcome = last !== null && last !== before ? last : null;
  const jumping = useStore(ui, (s) => s.editing?.kind === "jump");
  const now = useNow(100, running !== null);
  if (replay && (jumping || (!running && !message))) {
    return <ReplayBar replay={replay} width={width} />;
  }

  let line: { text: string; color: ColorName } | null = null;
  if (running) {
    const elapsed = Math.max(0, now - running.startedAt);
    const frame = SPINNER[Math.floor(elapsed / 100) % SPINNER.length];
    line = {
      text: `${frame} ${actionName(running.kind)} on ${running.sessionId}… ${formatElapsed(elapsed)}`,
      color: "accent",
    };
  } else if (message && !outcome) {
    line = { text: message.text, color: LEVEL_COLORS[message.level] ?? "muted" };
  } else if (outcome) {
    const took = formatElapsed(outcome.finishedAt - outcome.startedAt);
    line = outcome.ok
      ? { text: `✓ ${outcomeText(outcome)} (${took})`, color: "ok" }
      : { text: `✗ ${outcomeText(outcome)}`, color: "error" };
  }
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate-end">
        {line ? <Text color={theme.c[line.color]}>{fitStatus(line.text, width)}</Text> : " "}
      </Text>
    </Box>
  );
});
