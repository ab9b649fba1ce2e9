import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { NO_REVIEW } from "../../../store/review/reviewStore.js";
import { sanitizeLine } from "../../../text/sanitize.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { keyOf } from "../../model/keymap.js";
import { filesItems, showsSearch } from "../../model/review.js";
import type { FilesOverlayState } from "../../model/uiStore.js";
import { FramedBox } from "../frame/FramedBox.js";
import { WholeFile } from "./WholeFile.js";

/**
 * The files browser: a folder's entries (folders first, `..` goes up) or a search's hits (by
 * name and by content, with the matching lines), and a file read-only with line numbers.
 */

export const FilesView = memo(function FilesView({
  overlay: o,
  width,
  height,
}: {
  overlay: FilesOverlayState;
  width: number;
  height: number;
}) {
  const { review, secrets } = useServices();
  const theme = useTheme();
  const store = review?.store ?? NO_REVIEW;
  const st = useStore(
    store,
    useShallow((s) => ({
      sessionId: s.sessionId,
      listing: s.listing,
      hits: s.hits,
    })),
  );
  const rows = Math.max(1, height - 4);
  const closes = `${keyOf("cancel")} closes`;
  if (o.whole) {
    return (
      <FramedBox
        width={width}
        height={height}
        title={sanitizeLine(o.whole.path)}
        note={` — read-only · ${closes} · ${o.sessionId}`}
      >
        <WholeFile store={store} offset={o.whole.offset} rows={rows + 1} width={width - 4} />
      </FramedBox>
    );
  }
  const searching = showsSearch(o);
  const part = searching ? st.hits : st.listing;
  const items = filesItems(o, st);
  const top = Math.max(0, Math.min(o.cursor - Math.floor(rows / 2), items.length - rows));
  const window = items.slice(top, top + rows);
  const masked = secrets ? secrets.maskRows(window.map((x) => `${x.text}  ${x.detail}`)) : null;
  const where = searching ? `search "${o.search?.text}"` : sanitizeLine(o.dir);
  const status = o.search?.editing
    ? `/${o.search.draft}▏ (Enter searches names and contents)`
    : part.loading
      ? "reading…"
      : part.error
        ? `failed: ${part.error.message}`
        : `${items.length} ${searching ? "matches" : "entries"}`;
  return (
    <FramedBox
      width={width}
      height={height}
      title={`Files of ${o.sessionId}: ${where}`}
      note={` — ${keyOf("reviewOpen")} opens · ${keyOf("reviewSearch")} searches · ${closes}`}
      {...(part.error ? { tone: "error" as const } : {})}
    >
      <Box flexDirection="column" height={rows}>
        {window.map((x, i) => {
          const sel = top + i === o.cursor;
          const text = masked ? (masked[i] as string) : `${x.text}  ${x.detail}`;
          return (
            <Text
              key={x.path}
              wrap="truncate-end"
              inverse={sel}
              {...(x.dir ? { color: theme.c.accent } : {})}
            >
              {`${sel ? "›" : " "} ${text}`}
            </Text>
          );
        })}
      </Box>
      <Text wrap="truncate-end" color={part.error ? theme.c.error : theme.c.muted}>
        {status}
      </Text>
    </FramedBox>
  );
});
