/**
 * What the CLI entry imports (lazily, only when a TTY session starts): the root component,
 * what it must be given, and the defaults it uses.
 */
export { App, type AppProps } from "./App.js";
export { savePaneNdjson, toNdjson } from "./exportPane.js";
export { keymapMarkdown } from "./keymap.js";
export { MIN_COLUMNS, MIN_ROWS } from "./layout.js";
export {
  type AppOptions,
  type AppServices,
  DEFAULT_OPTIONS,
  type GitApi,
  type IdentityApi,
  type SaveEntries,
  type StreamControl,
} from "./services.js";
