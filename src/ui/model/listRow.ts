import type { Session } from "../../protocol/resources.js";
import {
  formatPrompts,
  formatUsd,
  lastActivityAt,
  promptCount,
  sessionRepo,
  totalCostUsd,
} from "../../protocol/sessionRecord.js";
import { textOrEmpty } from "../../protocol/values.js";
import type { hiddenFact } from "../../store/sessionsStore.js";
import { formatAgeCoarse, formatCount } from "../../text/format.js";
import { displayWidth } from "../../text/wrap.js";
import type { ListRowStyle } from "./geometry.js";
import { keyOf } from "./keymap.js";

/** What the view hides as destroyed or error, as the rows read it (sessionsStore's hiddenFact). */
export type HiddenFact = ReturnType<typeof hiddenFact>;

/**
 * What a session list row shows after the name, as the width allows: from 64 columns its last
 * activity ("3m ago"); from 100 the repository (the documented github_repo, else repo) and
 * branch, the last activity and the visibility; from 120 the prompts and the cost; from 110 the
 * sandbox URL last. Pure: the clock is given (in 5 s steps, so an idle list redraws rarely).
 */
export function listRowMeta(s: Session, style: ListRowStyle, width: number, now: number): string {
  if (style === "compact") return "";
  const at = lastActivityAt(s);
  const activity = at === null ? "" : formatAgeCoarse(Math.max(0, now - at));
  if (style === "ids") return activity;
  const prompts = promptCount(s);
  const usd = totalCostUsd(s);
  return [
    [sessionRepo(s) ?? "", textOrEmpty(s.branch)].filter(Boolean).join(" @ "),
    activity,
    width >= 120 && prompts !== null ? formatPrompts(prompts) : "",
    width >= 120 && usd !== null ? formatUsd(usd) : "",
    textOrEmpty(s.visibility),
    width >= 110 ? textOrEmpty(s.sandbox_url) : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * What the list and the fleet say about destroyed and error sessions, which the real service
 * leaves out unless asked: the longest wording that fits `room` cells, or null when none does
 * (a list narrowed beside panes; the key's help still says it).
 */
export function destroyedNote(fact: HiddenFact, room: number): string | null {
  if (fact === null) return null;
  const key = keyOf("includeDestroyed");
  const words = fact.shown
    ? [
        `destroyed and error sessions shown (${key} hides)`,
        `destroyed/error shown (${key})`,
        `${key}: hide destroyed`,
      ]
    : fact.turned > 0
      ? [
          `destroyed and error sessions hidden, but ${fact.turned} that changed since the list was read ${fact.turned === 1 ? "is" : "are"} shown (${key} shows all)`,
          `destroyed/error hidden, ${fact.turned} shown till refresh (${key})`,
          `${key}: show destroyed`,
        ]
      : [
          `destroyed and error sessions hidden (${key} shows)`,
          `destroyed/error hidden (${key})`,
          `${key}: show destroyed`,
        ];
  return words.find((w) => displayWidth(w) <= room) ?? null;
}

/** The list's status while its pages are read: how many the service counts that are still to come. */
export function loadingMoreText(toCome: number | null): string {
  return toCome === null || toCome === 0
    ? "loading more…"
    : `loading more… ${formatCount(toCome)} still to come`;
}
