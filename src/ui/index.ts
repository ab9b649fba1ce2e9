/**
 * What the CLI entry imports (lazily, only when a TTY session starts): the root component,
 * what it must be given, and the defaults it uses.
 */

export { savePaneNdjson, toNdjson } from "../cli/tui/savePane.js";
export { App, type AppProps } from "./App.js";
export { keymapMarkdown } from "./model/keymap.js";
export { MIN_COLUMNS, MIN_ROWS } from "./model/layout.js";
export {
  type AppOptions,
  type AppServices,
  DEFAULT_OPTIONS,
  type GitApi,
  type IdentityApi,
  type SaveEntries,
  type StreamControl,
} from "./model/services.js";
