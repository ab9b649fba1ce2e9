import { Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { FollowUpState } from "../../../store/act/followUps.js";
import { sanitizeLine } from "../../../text/sanitize.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { detailRows } from "../../model/geometry.js";
import { keyOf } from "../../model/keymap.js";
import { listWindowStart } from "../../model/layout.js";
import { FramedBox } from "../frame/FramedBox.js";
import { ScrollList, scrollWindow } from "../frame/ScrollList.js";

/**
 * A session's follow-up queue: the replies waiting for its running prompt to complete, next
 * first, each by its first line; what holds the queue, when something does.
 */

const NONE: readonly string[] = [];
const EMPTY = createStore<FollowUpState>()(() => ({ queues: new Map(), held: new Map() }));

export const FollowUpsOverlay = memo(function FollowUpsOverlay({
  width,
  height,
  sessionId,
  cursor,
}: {
  width: number;
  height: number;
  sessionId: string;
  cursor: number;
}) {
  const { followUps } = useServices();
  const theme = useTheme();
  const items = useStore(followUps ?? EMPTY, (s) => s.queues.get(sessionId) ?? NONE);
  const held = useStore(followUps ?? EMPTY, (s) => s.held.get(sessionId) ?? null);
  const rows = Math.max(1, detailRows(height) - (held ? 1 : 0));
  const at = Math.min(cursor, Math.max(0, items.length - 1));
  const { from } = scrollWindow(items, rows, listWindowStart(at, items.length, rows));
  return (
    <FramedBox
      width={width}
      height={height}
      title={`Follow-up queue · ${sessionId} · ${items.length} waiting`}
      note={` — next first · ${keyOf("followUpEdit")} edits · ${keyOf("followUpDrop")} drops · ${keyOf("cancel")} closes`}
    >
      {held ? <Text color={theme.c.warn}>{`waiting for you: ${held}`}</Text> : null}
      {items.length === 0 ? (
        <Text color={theme.c.muted}>Nothing is queued.</Text>
      ) : (
        <ScrollList
          items={items}
          rows={rows}
          top={from}
          width={Math.max(10, width - 4)}
          rowKey={(_, i) => String(i)}
          render={(text, i) => (
            <Text wrap="truncate-end" inverse={i === at}>
              {`${i + 1}. ${sanitizeLine(text.split("\n")[0] ?? "")}${text.includes("\n") ? " …" : ""}`}
            </Text>
          )}
        />
      )}
    </FramedBox>
  );
});
