import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import type { ReplayState, ReplayStore } from "../../../store/replay/replayEngine.js";
import { formatTime } from "../../../text/format.js";
import { useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { TextInput } from "./TextInput.js";

/**
 * The replay's line (in place of the status line while nothing else is said): playing or
 * paused, speed, the moment shown and how far into the recording, events played; or the
 * "jump to" field while it is being typed.
 */

export function replayText(s: ReplayState): string {
  const ended = s.position >= s.end;
  const mode = ended ? "■ end of recording" : s.playing ? "▶ playing" : "⏸ paused";
  const speed = s.speed === "max" ? "max" : `×${s.speed}`;
  const span = s.end - s.start;
  const pct = span > 0 ? Math.floor(((s.position - s.start) / span) * 100) : 100;
  return `REPLAY ${mode} ${speed} · ${formatTime(s.position)} (${pct}% of ${formatTime(s.start)}–${formatTime(s.end)}) · ${s.played}/${s.total} events`;
}

export const ReplayBar = memo(function ReplayBar({
  replay,
  width,
}: {
  replay: ReplayStore;
  width: number;
}) {
  const theme = useTheme();
  const { ui } = useUi();
  const s = useStore(replay);
  const jump = useStore(ui, (u) => (u.editing?.kind === "jump" ? u.editing.draft : null));
  if (jump !== null) {
    return (
      <Box height={1} width={width}>
        <Text color={theme.c.accent}>jump to: </Text>
        <TextInput
          value={jump}
          focus
          placeholder="10:12:30, +5m, -30s, 50%, start, end"
          width={Math.max(4, width - 9)}
        />
      </Box>
    );
  }
  return (
    <Box height={1} width={width}>
      <Text wrap="truncate-end" color={theme.c.accent}>
        {replayText(s)}
      </Text>
    </Box>
  );
});
