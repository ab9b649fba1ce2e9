import type { AttentionItem } from "../../store/attention/queue.js";
import { type Overlap, overlapLines } from "../../store/fleet/overlaps.js";
import { formatTime } from "../../text/format.js";

/**
 * What the detail of a session says before its record's fields: why it needs you and which
 * other sessions change its files (a row has room only for a mark). The overlay draws these
 * and its paging counts them.
 */
export function detailNotes(
  items: readonly AttentionItem[],
  overlap: readonly Overlap[] | undefined,
  sessionId: string,
): [string, string][] {
  return [
    ...items
      .filter((i) => i.sessionId === sessionId)
      .map((i): [string, string] => ["needs you", `${i.message} (since ${formatTime(i.since)})`]),
    ...overlapLines(overlap, 8).map((l): [string, string] => ["overlap", l]),
  ];
}
