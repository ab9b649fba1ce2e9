import { InvalidArgumentError } from "commander";

/** Parsers of option values shared by several commands' definitions. */

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive integer");
  return n;
}
