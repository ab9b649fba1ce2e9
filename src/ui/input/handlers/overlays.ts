import type { UiDeps } from "../../model/deps.js";
import { detailNotes } from "../../model/detailNotes.js";
import {
  attentionPaging,
  detailPaging,
  helpPaging,
  messagesPaging,
  type Paging,
} from "../../model/geometry.js";
import { integrationsViewLines } from "../../model/integrations.js";
import type { CommandId } from "../../model/keymap.js";
import { detailView } from "../../model/sessionDetail.js";
import type {
  DetailOverlayState,
  HelpOverlayState,
  IntegrationsOverlayState,
  MessagesOverlayState,
} from "../../model/uiStore.js";
import { goToSession, patch, sessionRecord } from "../actions.js";
import { movementKeys, type Step } from "./movement.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/**
 * The help, detail, messages and integrations overlays: scrolled by the movement keys
 * (SCROLLING, which integrations.ts spreads into its own keys), closed by their own keys. The
 * attention queue: the movement keys select an item, Enter goes to its session.
 */

type OverlayMode = ModeOf<"help"> | ModeOf<"detail"> | ModeOf<"messages"> | ModeOf<"integrations">;

const close: Handler = (deps) => patch(deps, { overlay: null });

function pagingOf(
  deps: UiDeps,
  o: HelpOverlayState | DetailOverlayState | MessagesOverlayState | IntegrationsOverlayState,
): Paging {
  const size = deps.ui.getState().size;
  if (o.kind === "integrations") {
    const st = deps.services.integrations?.getState();
    return detailPaging(
      size,
      integrationsViewLines(st?.report ?? null, st?.loading ?? false).length,
    );
  }
  if (o.kind === "help")
    return helpPaging(size, deps.services.identity.getState(), o.sessionState ?? null);
  if (o.kind === "messages") return messagesPaging(size, deps.ui.getState().log);
  const record = sessionRecord(deps, o.sessionId);
  const { attention, overlaps, routes } = deps.services;
  const notes = detailNotes(
    attention.getState().items,
    overlaps.getState().bySession.get(o.sessionId),
    o.sessionId,
  );
  const lines = record ? detailView(record, routes ?? null, 0, notes).lines.length : 0;
  return detailPaging(size, lines);
}

function scroll(step: Step): Handler<OverlayMode> {
  return (deps, { overlay: o }) => {
    const { page, maxOffset } = pagingOf(deps, o);
    const offset = Math.max(0, Math.min(maxOffset, step(o.offset, page)));
    patch(deps, { overlay: { ...o, offset } });
  };
}

export const SCROLLING: Partial<Record<CommandId, Handler<OverlayMode>>> = movementKeys(scroll);

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

type AttentionMode = ModeOf<"attention">;

function select(step: Step): Handler<AttentionMode> {
  return (deps, { overlay: o }) => {
    const items = deps.services.attention.getState().items.length;
    const { page, maxOffset } = attentionPaging(deps.ui.getState().size, items);
    const cursor = Math.max(0, Math.min(maxOffset, step(o.cursor, page)));
    patch(deps, { overlay: { ...o, cursor } });
  };
}

export const ATTENTION: ModeHandlers<"attention"> = {
  ...movementKeys(select),
  open: (deps, { overlay: o }) => {
    const item = deps.services.attention.getState().items[o.cursor];
    patch(deps, { overlay: null });
    if (item) goToSession(deps, item.sessionId);
  },
  attentionQueue: close,
  quit: close,
  cancel: close,
};
