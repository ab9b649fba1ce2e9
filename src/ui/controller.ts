import type { Key } from "ink";
import { unsafeIdReason } from "../protocol/ids.js";
import { knownStates, type SessionSortKey, selectVisibleSessions } from "../store/sessionsStore.js";
import { nextAttention } from "../store/streamsStore.js";
import { sanitize } from "../text/sanitize.js";
import { disabledReason, FORM_FIELDS, openForm, runGitAction, submitForm } from "./gitActions.js";
import { flowIntoColumns, helpGeometry, helpLines } from "./helpContent.js";
import type { Command, KeyContext } from "./keymap.js";
import { isTooSmall, listRows, paneBody, screenLayout } from "./layout.js";
import {
  initialPaneView,
  type KindToggle,
  type PaneView,
  resumeFollow,
  scrollBy,
  scrollToTop,
  searchStep,
  setQuery,
  toggleFollow,
  toggleKind,
  toggleTimestamps,
  toggleWrap,
  type Viewport,
} from "./paneState.js";
import type { AppOptions, AppServices, SaveEntries } from "./services.js";
import {
  type Dialog,
  focusedPaneId,
  type MessageLevel,
  type PendingAction,
  paneViewOf,
  type UiState,
  type UiStore,
} from "./uiStore.js";

/**
 * What every command does. Key presses arrive already resolved through the keymap; this
 * module changes the UI store and calls the service stores. No React here, so the behaviour
 * is testable without rendering and the components stay views.
 */

export interface ControllerDeps {
  services: AppServices;
  ui: UiStore;
  options: AppOptions;
  onExit: () => void;
  save: SaveEntries;
}

export interface Controller {
  /** The keymap context for the next key press. */
  keyContext(): KeyContext;
  handleKey(cmd: Command | null, input: string, key: Key): void;
  /** The text field with the cursor changed (filter, search, a form field). */
  editText(update: (prev: string) => string): void;
  /** Load identity and sessions if nobody has yet, and open the initial panes. */
  start(initialSessions: readonly string[]): void;
  openPane(sessionId: string): void;
  closePane(sessionId: string): void;
}

const SORT_CYCLE: readonly SessionSortKey[] = ["updated", "created", "id", "state", "title"];
const KIND_OF_COMMAND: Partial<Record<Command["id"], KindToggle>> = {
  toggleKindPrompt: "prompt",
  toggleKindOutput: "output",
  toggleKindFiles: "file",
  toggleKindState: "state",
};
/** Load the next page when the cursor gets this close to the end of what is loaded. */
const LOAD_MORE_MARGIN = 3;

export function createController(deps: ControllerDeps): Controller {
  const { services, ui, options } = deps;
  const { sessions, streams, identity, streamControl } = services;

  const get = () => ui.getState();
  const set = (patch: Partial<UiState>) => ui.setState(patch);

  function message(text: string, level: MessageLevel = "info"): void {
    set({ message: { text, level } });
  }

  function visible() {
    return selectVisibleSessions(sessions.getState());
  }

  function selectedSessionId(): string | null {
    const s = get();
    if (s.focus > 0) return focusedPaneId(s);
    return visible()[s.listCursor]?.session_id ?? null;
  }

  function zoomedPane(s: UiState): number | null {
    return s.zoomed && s.focus > 0 ? s.focus - 1 : null;
  }

  function viewportFor(sessionId: string): Viewport {
    const s = get();
    const idx = s.panes.indexOf(sessionId);
    const lay = screenLayout(s.size, {
      paneCount: s.panes.length,
      zoomedPane: zoomedPane(s),
      focusedPane: s.focus > 0 ? s.focus - 1 : null,
    });
    const cell = lay.cells.find((c) => c.index === idx) ?? lay.cells[0];
    const body = cell ? paneBody(cell) : { rows: 10, width: 40 };
    return { rows: body.rows, width: body.width, noColor: options.noColor };
  }

  function updateView(sessionId: string, fn: (v: PaneView) => PaneView): void {
    const s = get();
    const current = paneViewOf(s, sessionId);
    const next = fn(current);
    if (next !== current) set({ paneViews: { ...s.paneViews, [sessionId]: next } });
  }

  function timelineOf(sessionId: string) {
    return streams.getState().sessions[sessionId]?.timeline ?? null;
  }

  /**
   * Why this session must not be opened or acted on: its id, as the server sent it, could
   * leave its URL path segment (protocol/ids.ts). Null when it is fine.
   */
  function refusedId(sessionId: string): string | null {
    const bad = unsafeIdReason(sessionId) ?? sessions.getState().unsafeIds[sessionId] ?? null;
    return bad === null
      ? null
      : `Session "${sessionId}" cannot be opened or acted on: its id ${bad}, so no request is made with it`;
  }

  // ---- panes and focus

  function openPane(sessionId: string): void {
    const refused = refusedId(sessionId);
    if (refused !== null) {
      message(refused, "error");
      return;
    }
    const s = get();
    const at = s.panes.indexOf(sessionId);
    if (at >= 0) {
      set({ focus: at + 1 });
      return;
    }
    if (s.panes.length >= options.maxPanes) {
      message(`At most ${options.maxPanes} panes: close one with x first`, "warn");
      return;
    }
    set({
      panes: [...s.panes, sessionId],
      paneViews: { ...s.paneViews, [sessionId]: initialPaneView() },
    });
    streamControl.openStream(sessionId);
  }

  function closePane(sessionId: string): void {
    const s = get();
    const at = s.panes.indexOf(sessionId);
    if (at < 0) return;
    streamControl.closeStream(sessionId);
    const panes = s.panes.filter((id) => id !== sessionId);
    const { [sessionId]: _closed, ...paneViews } = s.paneViews;
    let focus = s.focus;
    if (focus === at + 1) focus = Math.min(at + 1, panes.length);
    else if (focus > at + 1) focus--;
    set({ panes, paneViews, focus, zoomed: s.zoomed && panes.length > 0 && focus > 0 });
  }

  function cycleFocus(step: 1 | -1): void {
    const s = get();
    if (s.zoomed && s.panes.length > 0) {
      const n = s.panes.length;
      const cur = Math.max(1, s.focus);
      set({ focus: ((cur - 1 + step + n) % n) + 1 });
      return;
    }
    const slots = s.panes.length + 1;
    set({ focus: (s.focus + step + slots) % slots });
  }

  function jumpToAttention(): void {
    const st = streams.getState();
    const current = selectedSessionId();
    const next = nextAttention(st, current);
    if (next === null) {
      message("No session needs attention");
      return;
    }
    st.acknowledge(next);
    const s = get();
    const at = s.panes.indexOf(next);
    if (at >= 0) {
      set({ focus: at + 1 });
      return;
    }
    const row = visible().findIndex((x) => x.session_id === next);
    if (row >= 0) set({ focus: 0, zoomed: false, listCursor: row });
  }

  // ---- list

  function moveCursor(to: number): void {
    const list = visible();
    const max = Math.max(0, list.length - 1);
    const cursor = Math.max(0, Math.min(max, to));
    set({ listCursor: cursor });
    const st = sessions.getState();
    if (st.hasMore && cursor >= list.length - LOAD_MORE_MARGIN) void st.loadMore();
  }

  function listPage(): number {
    const s = get();
    return listRows(screenLayout(s.size, { paneCount: s.panes.length, zoomedPane: null }).bodyRows);
  }

  function cycleStateFilter(): void {
    const st = sessions.getState();
    const states = ["active", "paused", ...knownStates(st.items)].filter(
      (v, i, a) => a.indexOf(v) === i,
    );
    const cycle: (string | null)[] = [null, ...states];
    const at = cycle.indexOf(st.stateFilter);
    st.setStateFilter(cycle[(at + 1) % cycle.length] ?? null);
    set({ listCursor: 0 });
  }

  function cycleSort(): void {
    const st = sessions.getState();
    const at = SORT_CYCLE.indexOf(st.sortKey);
    st.setSort(SORT_CYCLE[(at + 1) % SORT_CYCLE.length] ?? "updated");
    set({ listCursor: 0 });
  }

  // ---- pane commands

  function paneCommand(cmd: Command, sessionId: string): void {
    const buf = timelineOf(sessionId);
    const vp = viewportFor(sessionId);
    const kind = KIND_OF_COMMAND[cmd.id];
    if (kind) {
      updateView(sessionId, (v) => toggleKind(v, kind));
      return;
    }
    switch (cmd.id) {
      case "zoom":
        set({ zoomed: !get().zoomed });
        return;
      case "closePane":
        closePane(sessionId);
        return;
      case "wrap":
        updateView(sessionId, toggleWrap);
        return;
      case "timestamps":
        updateView(sessionId, toggleTimestamps);
        return;
      case "search":
        set({
          editing: { kind: "search", sessionId, draft: "" },
        });
        return;
      case "save":
        void saveTimeline(sessionId);
        return;
    }
    if (!buf) return;
    switch (cmd.id) {
      case "follow":
        updateView(sessionId, (v) => toggleFollow(v, buf, vp));
        return;
      case "up":
        updateView(sessionId, (v) => scrollBy(v, buf, vp, -1));
        return;
      case "down":
        updateView(sessionId, (v) => scrollBy(v, buf, vp, 1));
        return;
      case "pageUp":
        updateView(sessionId, (v) => scrollBy(v, buf, vp, -Math.max(1, vp.rows - 1)));
        return;
      case "pageDown":
        updateView(sessionId, (v) => scrollBy(v, buf, vp, Math.max(1, vp.rows - 1)));
        return;
      case "top":
        updateView(sessionId, (v) => scrollToTop(v, buf));
        return;
      case "bottom":
        updateView(sessionId, resumeFollow);
        return;
      case "searchNext":
      case "searchPrev": {
        const view = paneViewOf(get(), sessionId);
        if (!view.query) {
          message("No search yet: press / to search this pane");
          return;
        }
        const r = searchStep(view, buf, vp, cmd.id === "searchNext" ? "older" : "newer");
        if (!r.found) message(`No match for "${view.query}"`, "warn");
        updateView(sessionId, () => r.view);
        return;
      }
    }
  }

  async function saveTimeline(sessionId: string): Promise<void> {
    const buf = timelineOf(sessionId);
    if (!buf || buf.size === 0) {
      message(`Nothing to save yet in ${sessionId}`);
      return;
    }
    const entries = buf.toArray();
    try {
      const path = await deps.save(sessionId, entries);
      message(`Saved ${entries.length} entries of ${sessionId} to ${path}`, "ok");
    } catch (e) {
      message(
        `Could not save ${sessionId}: ${sanitize(e instanceof Error ? e.message : String(e))}`,
        "error",
      );
    }
  }

  // ---- git actions

  function gitCommand(cmd: Command): void {
    const sessionId = selectedSessionId();
    if (!sessionId) {
      message("Select a session first (list row or pane)");
      return;
    }
    const reason = disabledReason(cmd, identity.getState()) ?? refusedId(sessionId);
    if (reason) {
      message(reason, "error");
      return;
    }
    const session = sessionRecord(sessionId);
    let dialog: Dialog;
    switch (cmd.id) {
      case "clone":
        dialog = openForm("clone", sessionId);
        break;
      case "branch":
        dialog = openForm("branch", sessionId);
        break;
      case "pullRequest":
        dialog = openForm("pr", sessionId);
        break;
      default:
        dialog = {
          kind: "confirm",
          sessionId,
          action: { kind: "push", branch: session?.branch ?? null },
        };
    }
    set({ dialog, message: null });
  }

  function sessionRecord(sessionId: string) {
    return sessions.getState().items.find((x) => x.session_id === sessionId);
  }

  function startAction(
    sessionId: string,
    action: PendingAction | { kind: "clone"; repoUrl: string; branch: string | null },
  ): void {
    set({ dialog: null, message: null });
    void runGitAction(services, sessionId, action).then(({ busy }) => {
      if (busy) message(busy, "warn");
    });
  }

  // ---- key routing per mode

  function handleDialog(d: Dialog, cmd: Command | null): void {
    if (d.kind === "form") {
      const fields = FORM_FIELDS[d.form];
      switch (cmd?.id) {
        case "cancel":
          set({ dialog: null });
          return;
        case "nextField":
          set({ dialog: { ...d, field: (d.field + 1) % fields.length } });
          return;
        case "submit": {
          const r = submitForm(d, sessionRecord(d.sessionId));
          if (!r.ok) set({ dialog: { ...d, error: r.error } });
          else if ("run" in r) startAction(d.sessionId, r.run);
          else set({ dialog: { kind: "confirm", sessionId: d.sessionId, action: r.confirm } });
          return;
        }
      }
      return;
    }
    const yes = cmd?.id === "confirmYes" || cmd?.id === "submit";
    const no = cmd?.id === "confirmNo" || cmd?.id === "cancel";
    if (d.kind === "quit") {
      if (yes) deps.onExit();
      else if (no) set({ dialog: null });
      return;
    }
    if (yes) startAction(d.sessionId, d.action);
    else if (no) {
      set({ dialog: null });
      message(
        `${d.action.kind === "pr" ? "Pull request" : d.action.kind} cancelled: nothing was sent`,
      );
    }
  }

  function handleEditing(cmd: Command | null): void {
    const e = get().editing;
    if (!e) return;
    if (e.kind === "filter") {
      if (cmd?.id === "submit") set({ editing: null });
      else if (cmd?.id === "cancel") {
        sessions.getState().setFilterText("");
        set({ editing: null, listCursor: 0 });
      }
      return;
    }
    if (cmd?.id === "cancel") {
      set({ editing: null });
      return;
    }
    if (cmd?.id !== "submit") return;
    const buf = timelineOf(e.sessionId);
    set({ editing: null });
    if (!buf) return;
    const r = setQuery(paneViewOf(get(), e.sessionId), buf, e.draft.trim());
    updateView(e.sessionId, () => r.view);
    if (e.draft.trim() && !r.found) message(`No match for "${e.draft.trim()}"`, "warn");
  }

  function handleOverlay(cmd: Command | null, key: Key): void {
    const s = get();
    const o = s.overlay;
    if (!o) return;
    if (
      key.escape ||
      cmd?.id === "quit" ||
      cmd?.id === "help" ||
      (o.kind === "detail" && cmd?.id === "detail")
    ) {
      set({ overlay: null });
      return;
    }
    const lay = screenLayout(s.size, { paneCount: 0, zoomedPane: null });
    let max: number;
    let page: number;
    if (o.kind === "help") {
      const raw = helpLines(() => false);
      const rough = helpGeometry(lay.width, lay.bodyRows, raw.length);
      const lines = flowIntoColumns(raw, rough.rowsPerColumn);
      const g = helpGeometry(lay.width, lay.bodyRows, lines.length);
      max = g.maxOffset;
      page = g.rowsPerColumn;
    } else {
      const record = sessionRecord(o.sessionId);
      const count = record ? Object.keys(record).length : 0;
      // The detail box: border (2) and its title line.
      page = Math.max(1, lay.bodyRows - 3);
      max = Math.max(0, count - page);
    }
    const delta: Partial<Record<Command["id"], number>> = {
      up: -1,
      down: 1,
      pageUp: -page,
      pageDown: page,
      top: -Number.MAX_SAFE_INTEGER,
      bottom: Number.MAX_SAFE_INTEGER,
    };
    const d = cmd ? delta[cmd.id] : undefined;
    if (d === undefined) return;
    const offset = Math.max(0, Math.min(max, o.offset + d));
    set({ overlay: { ...o, offset } });
  }

  function handleMain(cmd: Command, input: string): void {
    const s = get();
    if (cmd.scope !== undefined) {
      gitCommand(cmd);
      return;
    }
    switch (cmd.id) {
      case "help":
        set({ overlay: { kind: "help", offset: 0 } });
        return;
      case "quit": {
        const running = services.actions.getState().running;
        if (running) set({ dialog: { kind: "quit" } });
        else deps.onExit();
        return;
      }
      case "focusNext":
        cycleFocus(1);
        return;
      case "focusPrev":
        cycleFocus(-1);
        return;
      case "focusList":
        set({ focus: 0, zoomed: false });
        return;
      case "focusPane": {
        const n = Number(input);
        if (n >= 1 && n <= s.panes.length) set({ focus: n });
        else message(`No pane ${input}`);
        return;
      }
      case "nextAttention":
        jumpToAttention();
        return;
      case "refresh":
        void identity.getState().load(services.api);
        void sessions.getState().refresh();
        message("Refreshing identity and sessions…");
        return;
    }
    const paneId = focusedPaneId(s);
    if (paneId) {
      paneCommand(cmd, paneId);
      return;
    }
    switch (cmd.id) {
      case "up":
        moveCursor(s.listCursor - 1);
        return;
      case "down":
        moveCursor(s.listCursor + 1);
        return;
      case "pageUp":
        moveCursor(s.listCursor - listPage());
        return;
      case "pageDown":
        moveCursor(s.listCursor + listPage());
        return;
      case "top":
        moveCursor(0);
        return;
      case "bottom":
        moveCursor(Number.MAX_SAFE_INTEGER);
        return;
      case "open": {
        const id = selectedSessionId();
        if (id) openPane(id);
        return;
      }
      case "filter":
        set({ editing: { kind: "filter" } });
        return;
      case "stateFilter":
        cycleStateFilter();
        return;
      case "sort":
        cycleSort();
        return;
      case "detail": {
        const id = selectedSessionId();
        if (id) set({ overlay: { kind: "detail", sessionId: id, offset: 0 } });
        return;
      }
    }
  }

  return {
    keyContext() {
      const s = get();
      if (s.dialog || s.editing) return "dialog";
      if (s.overlay) return "list";
      return s.focus > 0 ? "pane" : "list";
    },

    handleKey(cmd, input, key) {
      if (cmd?.id === "forceQuit") {
        deps.onExit();
        return;
      }
      const s = get();
      if (isTooSmall(s.size)) {
        if (cmd?.id === "quit") deps.onExit();
        return;
      }
      if (s.dialog) {
        handleDialog(s.dialog, cmd);
        return;
      }
      if (s.editing) {
        handleEditing(cmd);
        return;
      }
      if (s.overlay) {
        handleOverlay(cmd, key);
        return;
      }
      if (!cmd) return;
      if (s.message) set({ message: null });
      handleMain(cmd, input);
    },

    editText(update) {
      const s = get();
      const d = s.dialog;
      if (d?.kind === "form") {
        const values = d.values.slice();
        values[d.field] = update(values[d.field] ?? "");
        set({ dialog: { ...d, values, error: null } });
        return;
      }
      const e = s.editing;
      if (e?.kind === "filter") {
        const st = sessions.getState();
        st.setFilterText(update(st.filterText));
        set({ listCursor: 0 });
      } else if (e?.kind === "search") {
        set({ editing: { ...e, draft: update(e.draft) } });
      }
    },

    start(initialSessions) {
      const id = identity.getState();
      if (id.loadedAt === null && !id.loading) void id.load(services.api);
      const st = sessions.getState();
      if (st.loadedAt === null && !st.loading) void st.load();
      for (const sessionId of initialSessions.slice(0, options.maxPanes)) openPane(sessionId);
      if (get().panes.length > 0) set({ focus: 1 });
    },

    openPane,
    closePane,
  };
}
