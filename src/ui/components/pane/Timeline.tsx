import { Box, Text } from "ink";
import { memo } from "react";
import type { TimelineKind } from "../../../store/streams/entry.js";
import { type ColorName, type Theme, useTheme } from "../../context/theme.js";
import type { DisplayLine } from "../../model/timelineLines.js";

/**
 * The rows of a pane's timeline that are on screen: exactly `rows` lines, each cut at the
 * pane's width, so the frame never grows. Process output keeps its (sanitized) SGR colours.
 */

export interface TimelineProps {
  lines: readonly DisplayLine[];
  rows: number;
  width: number;
  /** Lower-cased search text, for highlighting. */
  query: string;
  matchSeq: number | null;
  empty: string;
}

const KIND_COLORS: Record<TimelineKind, ColorName> = {
  prompt: "prompt",
  output: "output",
  file: "file",
  state: "state",
  notice: "notice",
  divider: "accent",
  unwatched: "warn",
  heartbeat: "muted",
  unknown: "warn",
  malformed: "error",
};

function Highlighted({ body, query, theme }: { body: string; query: string; theme: Theme }) {
  if (!query) return <Text>{body}</Text>;
  const lower = body.toLowerCase();
  const parts: { text: string; hit: boolean }[] = [];
  let from = 0;
  for (let at = lower.indexOf(query); at >= 0; at = lower.indexOf(query, at + query.length)) {
    if (at > from) parts.push({ text: body.slice(from, at), hit: false });
    parts.push({ text: body.slice(at, at + query.length), hit: true });
    from = at + query.length;
    if (parts.length > 64) break;
  }
  if (from < body.length) parts.push({ text: body.slice(from), hit: false });
  return (
    <Text>
      {parts.map((p, i) =>
        p.hit ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable string
          <Text key={i} inverse color={theme.c.match}>
            {p.text}
          </Text>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable string
          <Text key={i}>{p.text}</Text>
        ),
      )}
    </Text>
  );
}

const Line = memo(function Line({
  line,
  width,
  query,
  current,
}: {
  line: DisplayLine;
  width: number;
  query: string;
  current: boolean;
}) {
  const theme = useTheme();
  // A gap marker says events may be missing: it stands out from the other notices.
  const gap = line.gap === true;
  const color = theme.c[gap ? "warn" : KIND_COLORS[line.kind]];
  const isState = line.kind === "state";
  const stderr = line.kind === "output" && line.prefix.startsWith("stderr");
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate-end" bold={isState || gap}>
        <Text
          color={stderr ? theme.c.stderr : color}
          inverse={current && line.line === 0}
          dimColor={line.kind === "notice" && !gap && theme.dim}
        >
          {current && line.line === 0 ? `${line.prefix.slice(0, -1)}▶` : line.prefix}
        </Text>
        {line.sgr ? (
          <Text>{line.body}</Text>
        ) : isState ? (
          <Text color={color}>{line.body}</Text>
        ) : (
          <Highlighted body={line.body} query={query} theme={theme} />
        )}
      </Text>
    </Box>
  );
});

export const Timeline = memo(function Timeline({
  lines,
  rows,
  width,
  query,
  matchSeq,
  empty,
}: TimelineProps) {
  const theme = useTheme();
  return (
    <Box height={rows} width={width} flexDirection="column" overflow="hidden">
      {lines.length === 0 ? (
        <Text color={theme.c.muted} dimColor={theme.dim} wrap="truncate-end">
          {empty}
        </Text>
      ) : (
        lines.map((l) => (
          <Line
            key={l.key}
            line={l}
            width={width}
            query={query}
            current={matchSeq !== null && l.seq === matchSeq}
          />
        ))
      )}
    </Box>
  );
});
