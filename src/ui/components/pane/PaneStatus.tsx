import { Box, Text } from "ink";
import { memo } from "react";
import { useTheme } from "../../context/theme.js";
import { keyOf } from "../../model/keymap.js";
import type { MatchStats, PaneView } from "../../model/paneView.js";
import { TextInput } from "../chrome/TextInput.js";

/**
 * A pane's bottom line: following, or "follow off" with "N new" (never "paused", which is a
 * session state), search, hidden kinds, view toggles.
 */

export interface PaneStatusProps {
  view: PaneView;
  newCount: number;
  stats: MatchStats | null;
  /** The search text being typed in this pane, or null. */
  searchDraft: string | null;
  width: number;
  /** "also changed by ses_b (src/x.ts)": another session on the repository changed its files. */
  overlap?: string | null;
}

const KIND_NAMES: Record<string, string> = {
  prompt: "prompt",
  output: "output",
  file: "files",
  state: "state",
};

export const PaneStatus = memo(function PaneStatus({
  view,
  newCount,
  stats,
  searchDraft,
  width,
  overlap = null,
}: PaneStatusProps) {
  const theme = useTheme();
  if (searchDraft !== null) {
    return (
      <Box height={1} width={width}>
        <Text color={theme.c.accent}>search /</Text>
        <TextInput value={searchDraft} focus width={Math.max(4, width - 9)} />
      </Box>
    );
  }
  const parts: { text: string; color?: string | undefined; bold?: boolean }[] = [];
  // First: it is about the work itself, and a narrow pane cuts the end of the line.
  if (overlap) parts.push({ text: `⇄ ${overlap}`, color: theme.c.warn, bold: true });
  if (view.follow) parts.push({ text: "▼ follow", color: theme.c.muted });
  else
    parts.push({
      text: `follow off — ${keyOf("bottom")} resumes · ${newCount} new`,
      color: newCount > 0 ? theme.c.warn : theme.c.muted,
      bold: newCount > 0,
    });
  if (view.query) {
    const pos = stats && stats.total > 0 ? `${stats.ordinal}/${stats.total}` : "no match";
    parts.push({
      text: `/${view.query} ${pos} (${keyOf("searchNext")} older, ${keyOf("searchPrev")} newer)`,
      color: theme.c.match,
    });
  }
  if (view.hidden.length > 0) {
    parts.push({ text: `hidden: ${view.hidden.map((k) => KIND_NAMES[k] ?? k).join(" ")}` });
  }
  if (!view.wrap) parts.push({ text: "no wrap" });
  if (view.timestamps) parts.push({ text: "times" });
  return (
    <Box height={1} width={width}>
      <Text wrap="truncate-end">
        {parts.map((p, i) => (
          <Text key={p.text}>
            {i > 0 ? <Text color={theme.c.muted}> · </Text> : null}
            <Text color={p.color} bold={p.bold}>
              {p.text}
            </Text>
          </Text>
        ))}
      </Text>
    </Box>
  );
});
