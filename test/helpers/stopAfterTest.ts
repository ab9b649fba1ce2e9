import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What a test starts (loopback servers, services, mounted UIs, stream subscriptions) is stopped
 * after it, last started first: each is registered with `stopAfterTest` (or `closeAfterTest`)
 * where it starts, and the file's `afterEach(stopStarted)` stops them all, so the list is
 * empty between tests (files of the "shared" project in vitest.config.ts run one after
 * another in one process and use this module in turn). Temporary folders
 * (`tempFolder`) go last, once nothing that was started can still write into them.
 */

const stops: Array<() => unknown> = [];
const folders: string[] = [];

/** Registers `stop` to run after the current test. */
export function stopAfterTest(stop: () => unknown): void {
  stops.push(stop);
}

/** `thing`, closed after the current test. */
export function closeAfterTest<T extends { close(): unknown }>(thing: T): T {
  stops.push(() => thing.close());
  return thing;
}

/** A new temporary folder named from `prefix`, removed after the current test. */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

/**
 * Stops everything registered so far, last started first, then removes the temporary
 * folders (a file's afterEach).
 */
export async function stopStarted(): Promise<void> {
  for (const stop of stops.splice(0).reverse()) await stop();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
}
