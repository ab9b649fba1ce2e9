import { afterEach } from "vitest";

// Ink writes only the final frame when CI is set; UI tests need every frame.
delete process.env.CI;
delete process.env.NO_COLOR;
process.env.FORCE_COLOR = process.env.FORCE_COLOR ?? "1";

// React's act() warnings mean a state update escaped a test's waits: fail the test instead of
// letting it pass on a frame that happened to be ready.
// Files of the "shared" project run one after another in one worker, each running this file
// again: the wrapper goes around the console's own error, never around a previous wrapper.
const actWarnings: string[] = [];
const holder = globalThis as { consoleErrorBeforeSetup?: typeof console.error };
holder.consoleErrorBeforeSetup ??= console.error;
const originalError = holder.consoleErrorBeforeSetup;
console.error = (...args: unknown[]) => {
  const first = typeof args[0] === "string" ? args[0] : "";
  if (first.includes("not wrapped in act(") || first.includes("act(...)")) {
    actWarnings.push(first);
  }
  originalError(...args);
};

afterEach(() => {
  if (actWarnings.length > 0) {
    const warnings = actWarnings.splice(0);
    throw new Error(`React act() warning during the test:\n${warnings.join("\n")}`);
  }
});
