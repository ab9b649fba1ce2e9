import { InvalidArgumentError, Option } from "commander";
import { isSessionId, unsafeIdReason } from "../../protocol/ids.js";

/** Parsers of option values shared by several commands' definitions. */

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

/** An integer of at least min (a seed, a count, milliseconds). */
export function intArg(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected an integer >= ${min}`);
    }
    return n;
  };
}

/** The reference service's simulator clock: real time, or stepped by the test that runs it. */
export function clockOption(): Option {
  return new Option(
    "--clock <clock>",
    'simulator time: system (real time) or manual (sessions stand still until POST /_clock/advance {"ms": N} from loopback; for tests)',
  )
    .choices(["system", "manual"])
    .default("system");
}

/** A session id as a user types it: ses_<id> or a UUID. */
export function sessionArg(id: string): string {
  if (!isSessionId(id))
    throw new InvalidArgumentError("expected a session id (ses_<id> or a UUID)");
  return id;
}

/** Several session ids of a variadic argument, each checked as sessionArg does. */
export function sessionsArg(id: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), sessionArg(id)];
}

/** An id that goes into a URL path (an approval's): refused when it could leave its segment. */
export function pathIdArg(id: string): string {
  const bad = unsafeIdReason(id);
  if (bad !== null) throw new InvalidArgumentError(`cannot be used in a request: ${bad}`);
  return id;
}
