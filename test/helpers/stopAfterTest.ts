/**
 * What a test starts (loopback servers, services, mounted UIs, stream subscriptions) is stopped
 * after it, last started first: each is registered with `stopAfterTest` (or `closeAfterTest`)
 * where it starts, and the file's `afterEach(stopStarted)` stops them all. A test file is a
 * module of its own (vitest isolates files), so the list is the file's.
 */

const stops: Array<() => unknown> = [];

/** Registers `stop` to run after the current test. */
export function stopAfterTest(stop: () => unknown): void {
  stops.push(stop);
}

/** `thing`, closed after the current test. */
export function closeAfterTest<T extends { close(): unknown }>(thing: T): T {
  stops.push(() => thing.close());
  return thing;
}

/** Stops everything registered so far, last started first (a file's afterEach). */
export async function stopStarted(): Promise<void> {
  for (const stop of stops.splice(0).reverse()) await stop();
}
