import { Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { type ColorName, useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { messagesLayout } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import type { MessageLevel } from "../../model/uiStore.js";
import { FramedBox } from "../frame/FramedBox.js";
import { ScrollList, scrollNote } from "../frame/ScrollList.js";

/** The messages log: every message and error of this run, whole, newest first. */

const LEVEL: Record<MessageLevel, { mark: string; color: ColorName }> = {
  info: { mark: "·", color: "muted" },
  ok: { mark: "✓", color: "ok" },
  warn: { mark: "⚠", color: "warn" },
  error: { mark: "✗", color: "error" },
};

export interface MessagesOverlayProps {
  width: number;
  height: number;
  offset: number;
}

export const MessagesOverlay = memo(function MessagesOverlay({
  width,
  height,
  offset,
}: MessagesOverlayProps) {
  const { ui } = useUi();
  const theme = useTheme();
  const log = useStore(ui, (s) => s.log);
  const dropped = useStore(ui, (s) => s.logDropped);
  const { lines, rows, maxOffset } = messagesLayout(log, width, height);
  const count = `${log.length} message${log.length === 1 ? "" : "s"}`;
  const older = dropped > 0 ? ` (${dropped} older ones dropped)` : "";
  const scroll = scrollNote(maxOffset > 0);
  return (
    <FramedBox
      width={width}
      height={height}
      title="Messages"
      note={` — ${count}${older}, newest first · ${keyOf("cancel")} or ${keyOf("messages")} closes${scroll}`}
    >
      {log.length === 0 ? (
        <Text color={theme.c.muted}>No messages yet.</Text>
      ) : (
        <ScrollList
          items={lines}
          rows={rows}
          top={offset}
          render={(l) => {
            const level = LEVEL[l.level];
            return (
              <Text wrap="truncate-end">
                <Text color={theme.c.muted}>{l.first ? l.time : " ".repeat(8)}</Text>
                <Text color={theme.c[level.color]}>{` ${l.first ? level.mark : " "} `}</Text>
                <Text color={l.level === "error" ? theme.c.error : undefined}>{l.text}</Text>
              </Text>
            );
          }}
        />
      )}
    </FramedBox>
  );
});
