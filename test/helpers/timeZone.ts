import { afterAll, beforeAll } from "vitest";

/**
 * In a file whose tests show local times: the time zone is `zone` from before its first test
 * to after its last, then what it was. Files of the "shared" project (vitest.config.ts) run
 * one after another in one process, so a zone left set would be the next file's.
 */
export function pinTimeZone(zone: string): void {
  let before: string | undefined;
  beforeAll(() => {
    before = process.env.TZ;
    process.env.TZ = zone;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });
}
