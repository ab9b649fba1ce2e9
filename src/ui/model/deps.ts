import type { TerminalEnd } from "../../client/terminalConnection.js";
import type { AppOptions, AppServices, EditText, SaveEntries } from "./services.js";
import type { UiStore } from "./uiStore.js";

/** What every handler is given: the UI state and the services, nothing React. */
export interface UiDeps {
  readonly ui: UiStore;
  readonly services: AppServices;
  readonly options: AppOptions;
  /** q (confirmed) and Ctrl-C: the caller unmounts and restores the terminal. */
  readonly exit: () => void;
  /** The UI's clock (fixed in snapshot tests): when a message was said. */
  readonly now: () => number;
  /** Where a pane's `e` writes; null where saving is not available. */
  readonly save: SaveEntries | null;
  /** Where the prompt box's editor key edits; null where no editor can be run. */
  readonly editText?: EditText | null;
  /**
   * The session's shell on the whole terminal, the UI handed over meanwhile (`@`); null where
   * the terminal cannot be handed over (tests, a replay).
   */
  readonly attach?: ((sessionId: string) => Promise<TerminalEnd>) | null;
}
