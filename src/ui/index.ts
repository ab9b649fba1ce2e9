/**
 * What the CLI entry imports (lazily, only when a TTY session starts): the root component and
 * what it must be given.
 */
export { App, type AppProps } from "./App.js";
export type { AppServices } from "./model/services.js";
