import type { Session } from "../../protocol/resources.js";
import { selectMarkedIds } from "../../store/attention/queue.js";
import { selectVisibleSessions } from "../../store/sessionsStore.js";
import type { UiDeps } from "./deps.js";

/**
 * The order the list and the fleet show: the sessions that need you first (an unseen item of
 * a notifying reason), then the chosen sort. While keys are being pressed the order is held
 * (a refresh changes rows in place, a new session joins at the end, a gone one leaves), so a
 * row never moves from under the cursor; the new order applies once the keys have paused for
 * SETTLE_MS, or at once on Ctrl-R.
 */

export const SETTLE_MS = 3000;

let memo: {
  visible: readonly Session[];
  held: readonly string[] | null;
  marked: ReadonlySet<string>;
  out: Session[];
} | null = null;

/** Pure (memoised on its three inputs): the rows in the order they are shown. */
export function orderSessions<T extends Session>(
  visible: readonly T[],
  held: readonly string[] | null,
  marked: ReadonlySet<string>,
): T[] {
  if (memo && memo.visible === visible && memo.held === held && memo.marked === marked) {
    return memo.out as T[];
  }
  let out: T[];
  if (held !== null) {
    const byId = new Map(visible.map((s) => [s.session_id, s]));
    out = [];
    for (const id of held) {
      const s = byId.get(id);
      if (s) {
        out.push(s);
        byId.delete(id);
      }
    }
    // Sessions that came meanwhile: at the end, in the sort's order.
    for (const s of visible) if (byId.has(s.session_id)) out.push(s);
  } else if (marked.size === 0) {
    out = visible as T[];
  } else {
    out = [
      ...visible.filter((s) => marked.has(s.session_id)),
      ...visible.filter((s) => !marked.has(s.session_id)),
    ];
  }
  memo = { visible, held, marked, out };
  return out;
}

/** The rows as shown now (the list's and the fleet's cursors index into it). */
export function shownSessions(deps: Pick<UiDeps, "services" | "ui">): Session[] {
  return orderSessions(
    selectVisibleSessions(deps.services.sessions.getState()),
    deps.ui.getState().heldOrder,
    selectMarkedIds(deps.services.attention.getState()),
  );
}

const timers = new WeakMap<object, ReturnType<typeof setTimeout>>();

/** A key was pressed: hold the order as it is, until the keys pause. */
export function holdOrder(deps: Pick<UiDeps, "services" | "ui">): void {
  if (deps.ui.getState().heldOrder === null) {
    deps.ui.setState({ heldOrder: shownSessions(deps).map((s) => s.session_id) });
  }
  const had = timers.get(deps.ui);
  if (had !== undefined) clearTimeout(had);
  const t = setTimeout(() => {
    timers.delete(deps.ui);
    releaseOrder(deps);
  }, SETTLE_MS);
  t.unref?.();
  timers.set(deps.ui, t);
}

/**
 * Apply the current order (the keys paused, or Ctrl-R); the cursors stay on their sessions
 * (keepSelection in follow.ts follows them).
 */
export function releaseOrder(deps: Pick<UiDeps, "services" | "ui">): void {
  const had = timers.get(deps.ui);
  if (had !== undefined) clearTimeout(had);
  timers.delete(deps.ui);
  if (deps.ui.getState().heldOrder === null) return;
  deps.ui.setState({ heldOrder: null });
}
