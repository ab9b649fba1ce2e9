import { detailPaging, helpPaging, messagesPaging, type Paging } from "../../model/geometry.js";
import type { CommandId } from "../../model/keymap.js";
import type { OverlayState } from "../../model/uiStore.js";
import { patch, sessionRecord } from "../actions.js";
import type { UiDeps } from "../deps.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/** The help and detail overlays: scrolled by the movement keys, closed by their own keys. */

type OverlayMode = ModeOf<"help"> | ModeOf<"detail"> | ModeOf<"messages">;

const close: Handler = (deps) => patch(deps, { overlay: null });

function pagingOf(deps: UiDeps, o: OverlayState): Paging {
  const size = deps.ui.getState().size;
  if (o.kind === "help") return helpPaging(size, deps.services.identity.getState());
  if (o.kind === "messages") return messagesPaging(size, deps.ui.getState().log);
  const record = sessionRecord(deps, o.sessionId);
  return detailPaging(size, record ? Object.keys(record).length : 0);
}

function scroll(by: (page: number) => number): Handler<OverlayMode> {
  return (deps, { overlay: o }) => {
    const { page, maxOffset } = pagingOf(deps, o);
    const offset = Math.max(0, Math.min(maxOffset, o.offset + by(page)));
    patch(deps, { overlay: { ...o, offset } });
  };
}

const SCROLLING: Partial<Record<CommandId, Handler<OverlayMode>>> = {
  up: scroll(() => -1),
  down: scroll(() => 1),
  pageUp: scroll((page) => -page),
  pageDown: scroll((page) => page),
  top: scroll(() => -Number.MAX_SAFE_INTEGER),
  bottom: scroll(() => Number.MAX_SAFE_INTEGER),
};

export const HELP: ModeHandlers<"help"> = { ...SCROLLING, help: close, quit: close, cancel: close };

export const DETAIL: ModeHandlers<"detail"> = {
  ...SCROLLING,
  detail: close,
  help: close,
  quit: close,
  cancel: close,
};

export const MESSAGES: ModeHandlers<"messages"> = {
  ...SCROLLING,
  messages: close,
  help: close,
  quit: close,
  cancel: close,
};
