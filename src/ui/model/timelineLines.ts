import type { TimelineEntry, TimelineKind } from "../../store/streams/entry.js";
import { formatTime, GAP_NOTICE_START } from "../../text/format.js";
import { layoutText, stripSgr } from "../../text/wrap.js";

/**
 * A timeline entry as the display lines a pane shows: a kind tag (and optional time) on the
 * first line, the text wrapped under it. Entries are immutable once written, so the lines of
 * each are cached per entry object and layout settings; only the rows on screen are ever laid
 * out.
 */

export const TAG_WIDTH = 7;
const TIME_WIDTH = 9;

export interface DisplayLine {
  /** Unique within a pane: entry seq and line number. */
  key: string;
  seq: number;
  kind: TimelineKind;
  /** Line number within the entry. */
  line: number;
  /** Tag (and time) column, padded; blank on continuation lines. */
  prefix: string;
  body: string;
  /** The body keeps SGR colours (process output). */
  sgr: boolean;
  /** A gap marker: events before this line may be missing. */
  gap?: boolean;
}

export interface LineOptions {
  width: number;
  wrap: boolean;
  timestamps: boolean;
  noColor: boolean;
}

const FILE_GLYPHS: Record<string, string> = {
  created: "+",
  added: "+",
  modified: "~",
  changed: "~",
  deleted: "-",
  removed: "-",
  renamed: "→",
};

export function tagOf(e: TimelineEntry): string {
  switch (e.kind) {
    case "prompt":
      return "prompt";
    case "output":
      return e.stream === "stderr" ? "stderr" : "output";
    case "file":
      return "files";
    case "state":
      return "state";
    case "notice":
      return e.text.startsWith(GAP_NOTICE_START) ? "gap" : "conn";
    case "unknown":
      return "event?";
    case "malformed":
      return "bad";
    case "heartbeat":
      return "beat";
    case "divider":
      return "live";
    case "unwatched":
      return "away";
  }
}

/** Marker lines span the pane as a rule, so they read as a break, not as an event. */
function isRule(e: TimelineEntry): boolean {
  return e.kind === "divider" || e.kind === "unwatched";
}

function ruleLine(e: TimelineEntry, width: number): string {
  const fill = e.kind === "divider" ? "─" : "┄";
  const glyph = e.kind === "divider" ? "▼ " : "";
  const head = `${fill}${fill} ${glyph}${e.text} `;
  const room = width - Array.from(head).length;
  return room > 0 ? head + fill.repeat(room) : head;
}

/** The text an entry shows (and search looks at), without the tag. */
export function entryText(e: TimelineEntry): string {
  switch (e.kind) {
    case "prompt":
      if (!e.promptType) return e.text;
      return e.text.trim() === "" ? `[${e.promptType}]` : `[${e.promptType}] ${e.text}`;
    case "file": {
      const action = e.action ?? "";
      const glyph = FILE_GLYPHS[action] ?? "•";
      return `${glyph} ${e.path ?? ""} (${action || "changed"})`;
    }
    case "state":
      return `══ ${e.previousState ?? "?"} → ${e.state ?? "?"} ══`;
    case "unknown":
    case "malformed":
      return `${e.event ? `${e.event}: ` : ""}${e.text}`;
    default:
      return e.text;
  }
}

interface CacheSlot {
  key: string;
  lines: DisplayLine[];
}

const cache = new WeakMap<TimelineEntry, CacheSlot>();

function optionsKey(o: LineOptions): string {
  return `${o.width}|${o.wrap ? 1 : 0}|${o.timestamps ? 1 : 0}|${o.noColor ? 1 : 0}`;
}

export function prefixWidth(o: Pick<LineOptions, "timestamps">): number {
  return TAG_WIDTH + 1 + (o.timestamps ? TIME_WIDTH : 0);
}

export function entryLines(e: TimelineEntry, o: LineOptions): DisplayLine[] {
  const key = optionsKey(o);
  const hit = cache.get(e);
  if (hit && hit.key === key) return hit.lines;
  if (isRule(e)) {
    const lines: DisplayLine[] = [
      {
        key: `${e.seq}:0`,
        seq: e.seq,
        kind: e.kind,
        line: 0,
        prefix: "",
        body: ruleLine(e, o.width),
        sgr: false,
      },
    ];
    cache.set(e, { key, lines });
    return lines;
  }
  const pw = prefixWidth(o);
  const bodyWidth = Math.max(4, o.width - pw);
  const sgr = e.kind === "output" && !o.noColor && e.text.includes("\x1b");
  let text = entryText(e);
  if (e.kind === "output" && !sgr) text = stripSgr(text);
  const pieces = layoutText(text, bodyWidth, o.wrap, e.kind === "output" ? "hard" : "words");
  const time = o.timestamps ? `${formatTime(e.ts ?? e.at)} ` : "";
  const tag = tagOf(e);
  const first = `${time}${tag.padEnd(TAG_WIDTH)} `;
  const blank = " ".repeat(pw);
  const gap = tag === "gap";
  const lines = pieces.map(
    (body, line): DisplayLine => ({
      key: `${e.seq}:${line}`,
      seq: e.seq,
      kind: e.kind,
      line,
      prefix: line === 0 ? first : blank,
      body,
      sgr,
      ...(gap ? { gap } : {}),
    }),
  );
  cache.set(e, { key, lines });
  return lines;
}

const searchText = new WeakMap<TimelineEntry, string>();

/** The lowercased text a search compares for an entry (what it shows, without SGR). */
export function searchTextOf(e: TimelineEntry): string {
  return stripSgr(entryText(e)).toLowerCase();
}

/** Case-insensitive match of a query against what the entry shows. */
export function entryMatches(e: TimelineEntry, lowerQuery: string): boolean {
  if (lowerQuery === "") return false;
  let hay = searchText.get(e);
  if (hay === undefined) {
    hay = searchTextOf(e);
    searchText.set(e, hay);
  }
  return hay.includes(lowerQuery);
}
