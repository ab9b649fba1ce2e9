import { Box, Text } from "ink";
import { memo, useEffect, useMemo, useSyncExternalStore } from "react";
import { useStore } from "zustand";
import { mergedTimelineOf } from "../../../store/streams/mergedTimeline.js";
import { useServices } from "../../context/servicesContext.js";
import { sessionColor, useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { MERGED_TAG_WIDTH, mergedViewport } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import { computeWindow, maskWindow, matchStats, newCount } from "../../model/paneView.js";
import { MERGED_ID, paneViewOf } from "../../model/uiStore.js";
import { PaneStatus } from "../pane/PaneStatus.js";
import { Timeline } from "../pane/Timeline.js";

/**
 * The merged timeline: the events of every streamed session (the panes' and the fleet's) in
 * time order, each line tagged with its session in a colour of its own (stern's view). It is
 * a pane in every other way: follow, search, kind toggles and export work as in one.
 */

export interface MergedViewProps {
  width: number;
  height: number;
}

function tag(id: string): string {
  const short = id.length > MERGED_TAG_WIDTH - 1 ? id.slice(0, MERGED_TAG_WIDTH - 2) : id;
  return short.padEnd(MERGED_TAG_WIDTH);
}

export const MergedView = memo(function MergedView({ width, height }: MergedViewProps) {
  const { streams, secrets } = useServices();
  const { ui } = useUi();
  const theme = useTheme();
  const merged = mergedTimelineOf(streams);
  useEffect(() => merged.attach(), [merged]);
  const version = useSyncExternalStore(
    (fn) => merged.subscribe(fn),
    () => merged.version,
  );
  const size = useStore(ui, (s) => s.size);
  const view = useStore(ui, (s) => paneViewOf(s, MERGED_ID));
  const searchDraft = useStore(ui, (s) =>
    s.editing?.kind === "search" && s.editing.sessionId === MERGED_ID ? s.editing.draft : null,
  );
  const vp = mergedViewport(size, theme.noColor);
  // biome-ignore lint/correctness/useExhaustiveDependencies: version marks new entries
  const win = useMemo(
    () => maskWindow(merged, view, vp, computeWindow(merged, view, vp), secrets),
    [merged, version, view, vp.rows, vp.width, secrets],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: version marks new entries
  const stats = useMemo(
    () => (view.query ? matchStats(merged, view) : null),
    [merged, version, view],
  );
  const fresh = newCount(merged, view);
  const sessions = merged.sessions;
  const inner = Math.max(10, width - 2);
  const bySeq = new Map<number, string>();
  for (const l of win.lines) {
    if (!bySeq.has(l.seq)) {
      const e = merged.get(l.seq - (merged.get(0)?.seq ?? 0));
      if (e?.sessionId) bySeq.set(l.seq, e.sessionId);
    }
  }
  return (
    <Box
      width={width}
      height={height}
      flexDirection="column"
      borderStyle="double"
      borderColor={theme.c.focus}
      overflow="hidden"
    >
      <Box height={1} width={inner}>
        <Text wrap="truncate-end">
          <Text bold color={theme.c.focus}>
            Merged timeline
          </Text>
          <Text
            color={theme.c.muted}
          >{` · ${sessions.length} session${sessions.length === 1 ? "" : "s"} · ${keyOf("merged")} or ${keyOf("cancel")} goes back · `}</Text>
          {sessions.slice(0, 12).map((id) => (
            <Text key={id} color={sessionColor(theme, id)} bold>{`${id} `}</Text>
          ))}
          {sessions.length > 12 ? (
            <Text color={theme.c.muted}>{`+${sessions.length - 12}`}</Text>
          ) : null}
        </Text>
      </Box>
      <Box height={vp.rows} width={inner} flexDirection="row">
        <Box width={MERGED_TAG_WIDTH} height={vp.rows} flexDirection="column" flexShrink={0}>
          {win.lines.map((l) => {
            const id = bySeq.get(l.seq) ?? "";
            return (
              <Text
                key={l.key}
                color={sessionColor(theme, id)}
                bold={l.line === 0}
                wrap="truncate-end"
              >
                {l.line === 0 ? tag(id) : " ".repeat(MERGED_TAG_WIDTH)}
              </Text>
            );
          })}
        </Box>
        <Timeline
          lines={win.lines}
          rows={vp.rows}
          width={vp.width}
          query={view.query.toLowerCase()}
          matchSeq={view.matchSeq}
          empty={
            sessions.length === 0
              ? `no streamed session yet: open panes, or ${keyOf("fleet")} for the fleet view (its rows stream)`
              : "waiting for events…"
          }
        />
      </Box>
      <PaneStatus
        view={view}
        newCount={fresh}
        stats={stats}
        searchDraft={searchDraft}
        width={inner}
      />
    </Box>
  );
});
