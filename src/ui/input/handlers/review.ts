import { browsableUrl, lastPromptStart } from "../../../protocol/review.js";
import { actOf } from "../../../store/act/actStore.js";
import type { Changes } from "../../../store/review/reviewStore.js";
import { osc52Copy } from "../../../text/clipboard.js";
import {
  type ChangesLayout,
  fileAtRow,
  layoutOfChanges,
  nextFileRow,
  nextHunkRow,
  searchRows,
} from "../../model/changesView.js";
import type { UiDeps } from "../../model/deps.js";
import { bodyOf, detailRows } from "../../model/geometry.js";
import { disabledReason } from "../../model/gitActions.js";
import { type Command, commandById, keyOf } from "../../model/keymap.js";
import { type FilesItem, filesItems, linkItems, rewindFiles } from "../../model/review.js";
import type { ReviewServices } from "../../model/services.js";
import type {
  ChangesOverlayState,
  FilesOverlayState,
  PendingAction,
  ReviewKey,
} from "../../model/uiStore.js";
import { message, patch, sessionRecord } from "../actions.js";
import type { TextField } from "../textField.js";
import { movementKeys, type Step } from "./movement.js";
import { target } from "./sessionTarget.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/**
 * Review and take home: the changes view (d), the files browser (l), taking the changes home
 * (H), rewinding the last prompt (W) and the links menu (u), on the focused session; and the
 * keys inside those views. What is read lives in the review store; these decide what to
 * open, ask and say.
 */

/** The session a review key is about, if the key may act; else said, and null. */
function reviewTarget(
  deps: UiDeps,
  cmd: Command,
): { sessionId: string; review: ReviewServices } | null {
  const review = deps.services.review;
  const sessionId = target(deps, cmd, review);
  return sessionId && review ? { sessionId, review } : null;
}

/** A paused session is offered a resume first (its workspace answers nothing while paused). */
function pausedFirst(deps: UiDeps, sessionId: string, then: ReviewKey): boolean {
  if (sessionRecord(deps, sessionId)?.state !== "paused") return false;
  patch(deps, {
    dialog: { kind: "confirm", sessionId, action: { kind: "resumeFirst", then } },
    message: null,
  });
  return true;
}

function streamSeen(deps: UiDeps, sessionId: string): { path: string; action: string }[] {
  const files = deps.services.activity.files(sessionId);
  return files ? [...files].map(([path, f]) => ({ path, action: f.action })) : [];
}

function openChanges(deps: UiDeps, sessionId: string, review: ReviewServices): void {
  patch(deps, {
    overlay: {
      kind: "changes",
      sessionId,
      offset: 0,
      seen: streamSeen(deps, sessionId),
      search: null,
      whole: null,
    },
    message: null,
  });
  void review.store.getState().loadChanges(sessionId);
}

function openFiles(deps: UiDeps, sessionId: string, review: ReviewServices): void {
  patch(deps, {
    overlay: { kind: "files", sessionId, dir: "/", cursor: 0, search: null, whole: null },
    message: null,
  });
  void review.store.getState().list(sessionId, "/");
}

/** The session's changes if the store holds them, else read them now (and say so). */
async function changesOf(deps: UiDeps, sessionId: string, review: ReviewServices) {
  const st = review.store.getState();
  if (st.sessionId === sessionId && st.changes.value) return st.changes.value;
  message(deps, `Reading the changes of ${sessionId}…`);
  await st.loadChanges(sessionId);
  const after = review.store.getState().changes;
  if (after.error) {
    message(deps, `Reading the changes of ${sessionId} failed: ${after.error.message}`, "error");
    return null;
  }
  return after.value;
}

function diffFiles(c: Changes): string[] {
  const l = layoutOfChanges(c, []);
  const files: string[] = [];
  for (let i = 0; i < (l.data.diff?.files.length ?? 0); i++) {
    const p = fileAtRow(l, 1 + i);
    if (p !== null) files.push(p);
  }
  return files;
}

async function askTakeHome(deps: UiDeps, sessionId: string, review: ReviewServices) {
  const c = await changesOf(deps, sessionId, review);
  if (!c) return;
  patch(deps, {
    dialog: {
      kind: "confirm",
      sessionId,
      action: { kind: "takeHome", how: c.patch ? "apply" : "checkout", files: diffFiles(c) },
    },
    message: null,
  });
}

async function askRewind(deps: UiDeps, sessionId: string, review: ReviewServices) {
  const record = sessionRecord(deps, sessionId);
  let r = rewindFiles(
    deps.services.activity.files(sessionId),
    lastPromptStart(record),
    review.store.getState().sessionId === sessionId ? review.store.getState().changes.value : null,
  );
  if (r.source === "none") {
    const c = await changesOf(deps, sessionId, review);
    r = rewindFiles(null, null, c);
  }
  patch(deps, {
    dialog: {
      kind: "confirm",
      sessionId,
      action: { kind: "rewind", files: r.files, source: r.source },
    },
    message: null,
  });
}

function openLinks(deps: UiDeps, sessionId: string, review: ReviewServices): void {
  patch(deps, { overlay: { kind: "links", sessionId, cursor: 0 }, message: null });
  void review.store.getState().loadPorts(sessionId);
}

/** What a review key does once the session may be asked. */
function proceed(deps: UiDeps, key: ReviewKey, sessionId: string, review: ReviewServices): void {
  if (key === "changes") openChanges(deps, sessionId, review);
  else if (key === "files") openFiles(deps, sessionId, review);
  else if (key === "takeHome") void askTakeHome(deps, sessionId, review);
  else void askRewind(deps, sessionId, review);
}

function reviewKey(
  id: "changes" | "filesBrowser" | "takeHome" | "rewind",
  key: ReviewKey,
): Handler {
  return (deps) => {
    const t = reviewTarget(deps, commandById(id));
    if (!t) return;
    if (pausedFirst(deps, t.sessionId, key)) return;
    proceed(deps, key, t.sessionId, t.review);
  };
}

export const REVIEW_SCREEN: ModeHandlers<"list" | "pane" | "fleet"> = {
  changes: reviewKey("changes", "changes"),
  filesBrowser: reviewKey("filesBrowser", "files"),
  takeHome: reviewKey("takeHome", "takeHome"),
  rewind: reviewKey("rewind", "rewind"),
  links: (deps) => {
    const t = reviewTarget(deps, commandById("links"));
    if (t) openLinks(deps, t.sessionId, t.review);
  },
};

/** Runs a review confirmation: resume first, take home, rewind. */
export function startReviewPending(
  deps: UiDeps,
  sessionId: string,
  action: Extract<PendingAction, { kind: "takeHome" | "rewind" | "resumeFirst" }>,
): void {
  patch(deps, { dialog: null, message: null });
  const review = deps.services.review;
  if (!review) return;
  if (action.kind === "resumeFirst") {
    const act = deps.services.act;
    if (!act) return;
    message(deps, `Resuming ${sessionId}…`);
    void act.lifecycle(sessionId, "resume").then((ok) => {
      void deps.services.sessions.getState().refreshSession(sessionId);
      if (!ok) {
        const n = actOf(act.getState(), sessionId).notice;
        message(deps, `${sessionId}: ${n?.text ?? "resume failed"}`, "error");
        return;
      }
      message(deps, `${sessionId} resumed`, "ok");
      proceed(deps, action.then, sessionId, review);
    });
    return;
  }
  if (action.kind === "rewind") {
    message(deps, `Rewinding the last prompt of ${sessionId}…`);
    void review.api.rewindPrompt(sessionId).then(
      (a) => {
        const files = a.revertedFiles.map((f) => deps.services.secrets?.redact(f) ?? f);
        const list = files.length > 0 ? `: reverted ${files.join(", ")}` : ": no file reverted";
        message(
          deps,
          a.rewound
            ? `${sessionId}: last prompt rewound${list}`
            : `${sessionId}: nothing was rewound`,
          a.rewound ? "ok" : "warn",
        );
        void deps.services.sessions.getState().refreshSession(sessionId);
      },
      (e: unknown) => message(deps, `Rewind failed: ${errorText(deps, e)}`, "error"),
    );
    return;
  }
  const home = review.home;
  if (!home) {
    message(deps, "Taking changes home needs a local git checkout: none is reachable here", "warn");
    return;
  }
  void (async () => {
    const st = review.store.getState();
    const changes = st.sessionId === sessionId ? st.changes.value : null;
    let outcome: { ok: boolean; lines: readonly string[] };
    if (action.how === "apply") {
      if (!changes?.patch) {
        message(deps, `${sessionId} has no diff to apply`, "warn");
        return;
      }
      message(deps, `Applying the changes of ${sessionId} (preflight first)…`);
      outcome = await home.apply(changes.patch, sessionId);
    } else {
      const record = sessionRecord(deps, sessionId);
      if (!record) {
        message(deps, `${sessionId} is not in the list: its record names its branch`, "warn");
        return;
      }
      message(deps, `Checking out the branch ${sessionId} pushed…`);
      outcome = await home.checkout(record);
    }
    message(deps, outcome.lines.join(" · "), outcome.ok ? "ok" : "error");
  })();
}

function errorText(deps: UiDeps, e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  return deps.services.secrets?.redact(raw) ?? raw;
}

// --- inside the views ------------------------------------------------------------------------

function rowsOf(deps: UiDeps): number {
  // The box's border and title, and the view's own status row.
  return Math.max(1, detailRows(bodyOf(deps.ui.getState().size).rows) - 1);
}

function setOverlay(deps: UiDeps, o: ChangesOverlayState | FilesOverlayState): void {
  patch(deps, { overlay: o });
}

/** The changes view's layout, once its changes are read. */
export function changesLayoutOf(deps: UiDeps, o: ChangesOverlayState): ChangesLayout | null {
  const st = deps.services.review?.store.getState();
  if (!st || st.sessionId !== o.sessionId || !st.changes.value) return null;
  return layoutOfChanges(st.changes.value, o.seen);
}

function wholeLines(deps: UiDeps): number {
  const w = deps.services.review?.store.getState().whole.value;
  return w ? Math.max(1, w.lines.length) : 0;
}

function clampTop(top: number, total: number, page: number): number {
  return Math.max(0, Math.min(Math.max(0, total - page), top));
}

type Changes_ = ModeOf<"changes">;

function scrollChanges(step: Step): Handler<Changes_> {
  return (deps, { overlay: o }) => {
    const page = rowsOf(deps);
    if (o.whole) {
      const top = clampTop(step(o.whole.offset, page), wholeLines(deps), page);
      setOverlay(deps, { ...o, whole: { ...o.whole, offset: top } });
      return;
    }
    const l = changesLayoutOf(deps, o);
    if (!l) return;
    setOverlay(deps, { ...o, offset: clampTop(step(o.offset, page), l.rows, page) });
  };
}

function jump(
  find: (l: ChangesLayout, row: number) => number | null,
  none: string,
): Handler<Changes_> {
  return (deps, { overlay: o }) => {
    if (o.whole) return;
    const l = changesLayoutOf(deps, o);
    if (!l) return;
    const row = find(l, o.offset);
    if (row === null) message(deps, none);
    else setOverlay(deps, { ...o, offset: row });
  };
}

function searchStep(dir: 1 | -1): Handler<Changes_> {
  return (deps, { overlay: o }) => {
    const l = changesLayoutOf(deps, o);
    const text = o.search?.text ?? "";
    if (!l || text === "" || o.whole) {
      if (text === "") message(deps, `Nothing searched yet: ${keyOf("reviewSearch")} searches`);
      return;
    }
    const row = searchRows(l, text, o.offset, dir);
    if (row === null) message(deps, `No match for "${text}"`, "warn");
    else setOverlay(deps, { ...o, offset: row });
  };
}

const closeOverlay: Handler = (deps) => patch(deps, { overlay: null });

export const CHANGES: ModeHandlers<"changes"> = {
  ...movementKeys(scrollChanges),
  nextHunk: jump((l, r) => nextHunkRow(l, r, 1), "No later hunk"),
  prevHunk: jump((l, r) => nextHunkRow(l, r, -1), "No earlier hunk"),
  nextFile: jump((l, r) => nextFileRow(l, r, 1), "No later file"),
  prevFile: jump((l, r) => nextFileRow(l, r, -1), "No earlier file"),
  reviewSearch: (deps, { overlay: o }) =>
    setOverlay(deps, {
      ...o,
      search: { text: o.search?.text ?? "", editing: true, draft: o.search?.text ?? "" },
    }),
  reviewNext: searchStep(1),
  reviewPrev: searchStep(-1),
  reviewOpen: (deps, { overlay: o }) => {
    if (o.whole) return;
    const l = changesLayoutOf(deps, o);
    const path = l ? fileAtRow(l, o.offset) : null;
    if (!path) {
      message(deps, `Move to a file first (${keyOf("nextFile")} goes to the next one)`);
      return;
    }
    setOverlay(deps, { ...o, whole: { path, offset: 0 } });
    void deps.services.review?.store.getState().readWhole(o.sessionId, path);
  },
  changes: closeOverlay,
  takeHome: (deps, { overlay: o }) => {
    const t = reviewTarget(deps, commandById("takeHome"));
    if (!t) return;
    if (pausedFirst(deps, o.sessionId, "takeHome")) return;
    void askTakeHome(deps, o.sessionId, t.review);
  },
  refresh: (deps, { overlay: o }) => {
    void deps.services.review?.store.getState().loadChanges(o.sessionId);
  },
  cancel: (deps, { overlay: o }) => {
    if (o.whole) setOverlay(deps, { ...o, whole: null });
    else if (o.search) setOverlay(deps, { ...o, search: null });
    else patch(deps, { overlay: null });
  },
  quit: closeOverlay,
};

// The files browser: a folder's entries (or a search's hits), a file shown whole.

type Files = ModeOf<"files">;

/** The rows the browser lists now: the hits of a search, else the folder's entries. */
function filesRowsOf(deps: UiDeps, o: FilesOverlayState): FilesItem[] {
  const st = deps.services.review?.store.getState();
  return st ? filesItems(o, st) : [];
}

function moveFiles(step: Step): Handler<Files> {
  return (deps, { overlay: o }) => {
    const page = rowsOf(deps);
    if (o.whole) {
      const top = clampTop(step(o.whole.offset, page), wholeLines(deps), page);
      setOverlay(deps, { ...o, whole: { ...o.whole, offset: top } });
      return;
    }
    const n = filesRowsOf(deps, o).length;
    setOverlay(deps, { ...o, cursor: Math.max(0, Math.min(n - 1, step(o.cursor, page))) });
  };
}

export const FILES: ModeHandlers<"files"> = {
  ...movementKeys(moveFiles),
  reviewNext: moveFiles((at) => at + 1),
  reviewPrev: moveFiles((at) => at - 1),
  reviewSearch: (deps, { overlay: o }) =>
    setOverlay(deps, {
      ...o,
      search: { text: o.search?.text ?? "", editing: true, draft: o.search?.text ?? "" },
    }),
  reviewOpen: (deps, { overlay: o }) => {
    if (o.whole) return;
    const row = filesRowsOf(deps, o)[o.cursor];
    const store = deps.services.review?.store.getState();
    if (!row || !store) return;
    if (row.dir) {
      setOverlay(deps, { ...o, dir: row.path, cursor: 0, search: null });
      store.clearSearch();
      void store.list(o.sessionId, row.path);
      return;
    }
    setOverlay(deps, { ...o, whole: { path: row.path, offset: 0 } });
    void store.readWhole(o.sessionId, row.path);
  },
  filesBrowser: closeOverlay,
  refresh: (deps, { overlay: o }) => {
    void deps.services.review?.store.getState().list(o.sessionId, o.dir);
  },
  cancel: (deps, { overlay: o }) => {
    if (o.whole) setOverlay(deps, { ...o, whole: null });
    else if (o.search) {
      setOverlay(deps, { ...o, search: null, cursor: 0 });
      deps.services.review?.store.getState().clearSearch();
    } else patch(deps, { overlay: null });
  },
  quit: closeOverlay,
};

// Typing a search: Enter searches (the diff here; the service for the files), Esc drops it.

export const REVIEW_SEARCH: ModeHandlers<"reviewSearch"> = {
  submit: (deps, { overlay: o }) => {
    const text = o.search?.draft.trim() ?? "";
    if (text === "") {
      setOverlay(deps, { ...o, search: null });
      return;
    }
    const search = { text, editing: false, draft: text };
    if (o.kind === "files") {
      setOverlay(deps, { ...o, search, cursor: 0 });
      void deps.services.review?.store.getState().search(o.sessionId, text);
      return;
    }
    const l = changesLayoutOf(deps, o);
    const row = l ? searchRows(l, text, o.offset - 1, 1) : null;
    setOverlay(deps, { ...o, search, offset: row ?? o.offset });
    if (row === null) message(deps, `No match for "${text}"`, "warn");
  },
  cancel: (deps, { overlay: o }) => {
    setOverlay(
      deps,
      o.search?.text ? { ...o, search: { ...o.search, editing: false } } : { ...o, search: null },
    );
  },
};

/** The search field with the cursor. */
export function reviewSearchField(deps: UiDeps): TextField {
  return {
    get: () => {
      const o = deps.ui.getState().overlay;
      return o && (o.kind === "changes" || o.kind === "files") ? (o.search?.draft ?? "") : "";
    },
    set: (v) => {
      const o = deps.ui.getState().overlay;
      if (!o || (o.kind !== "changes" && o.kind !== "files") || !o.search) return;
      setOverlay(deps, { ...o, search: { ...o.search, draft: v } });
    },
  };
}

// The links menu: open in the browser, copy to the clipboard, a port through connect.

type Links = ModeOf<"links">;

export function linksOf(deps: UiDeps, sessionId: string) {
  const st = deps.services.review?.store.getState();
  const ports = st && st.sessionId === sessionId ? st.ports.value : null;
  return linkItems(
    sessionId,
    sessionRecord(deps, sessionId),
    deps.services.actions.getState().history,
    ports,
  );
}

function moveLinks(step: Step): Handler<Links> {
  return (deps, { overlay: o }) => {
    const n = linksOf(deps, o.sessionId).length;
    const at = step(o.cursor, rowsOf(deps));
    patch(deps, { overlay: { ...o, cursor: Math.max(0, Math.min(n - 1, at)) } });
  };
}

async function openLink(deps: UiDeps, review: ReviewServices, url: string): Promise<void> {
  const r = await review.openUrl(url);
  if (r.opened) message(deps, `Opened ${url}`, "ok");
  else message(deps, `${r.error ?? "No browser opener here (xdg-open, open)"}: ${url}`, "warn");
}

export const LINKS: ModeHandlers<"links"> = {
  ...movementKeys(moveLinks),
  reviewOpen: (deps, { overlay: o }) => {
    const review = deps.services.review;
    const item = linksOf(deps, o.sessionId)[o.cursor];
    if (!review || !item) return;
    if (item.url) {
      void openLink(deps, review, item.url);
      return;
    }
    if (item.port !== undefined) {
      const reason = disabledReason(
        { label: "connect", scope: "sessions:write" },
        deps.services.identity.getState(),
      );
      if (reason) {
        message(deps, reason, "error");
        return;
      }
      message(deps, `Asking the service for port ${item.port}…`);
      void review.api.connectPort(o.sessionId, item.port).then(
        (a) => {
          const url = browsableUrl(a.previewUrl);
          if (url) void openLink(deps, review, url);
          else
            message(deps, `The service's URL for port ${item.port} is not an http(s) URL`, "error");
        },
        (e: unknown) => message(deps, `Connect failed: ${errorText(deps, e)}`, "error"),
      );
      return;
    }
    if (item.copy) copy(deps, item.copy, item.label);
    else message(deps, `The session has no ${item.label} URL`);
  },
  copyLink: (deps, { overlay: o }) => {
    const item = linksOf(deps, o.sessionId)[o.cursor];
    if (!item?.copy) {
      message(
        deps,
        item?.port !== undefined
          ? "Open a port first (Enter): its URL comes from the service"
          : "Nothing to copy here",
      );
      return;
    }
    copy(deps, item.copy, item.label);
  },
  links: closeOverlay,
  cancel: closeOverlay,
  quit: closeOverlay,
};

function copy(deps: UiDeps, text: string, what: string): void {
  const out = deps.options.notifyOut;
  if (!out) {
    message(deps, `Copying is not available here: ${text}`, "warn");
    return;
  }
  out(osc52Copy(text, { tmux: deps.options.tmux }));
  message(deps, `Copied the ${what} to the clipboard (OSC 52): ${text}`, "ok");
}
