import { randomInt } from "node:crypto";

/**
 * Randomness for the reference service. With a seed everything (keys, ids, simulated content)
 * is reproducible, which tests and snapshot fixtures rely on; without one, keys come from the
 * OS CSPRNG so a service left running on a shared machine does not hand out guessable keys.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  /** Exponentially distributed with the given mean (for Poisson-like pacing). */
  exponential(mean: number): number;
  /** n characters of [0-9A-Za-z]. */
  base62(n: number): string;
  /** A UUID-shaped (version 4 layout) identifier. */
  uuid(): string;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** mulberry32: tiny, fast, good enough for simulation (not for secrets). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function build(next: () => number, intFn: (n: number) => number): Random {
  const r: Random = {
    next,
    int: intFn,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[intFn(items.length)] as T;
    },
    exponential: (mean) => -Math.log(1 - next()) * mean,
    base62: (n) => {
      let s = "";
      for (let i = 0; i < n; i++) s += BASE62[intFn(62)];
      return s;
    },
    uuid: () => {
      let hex = "";
      for (let i = 0; i < 32; i++) hex += intFn(16).toString(16);
      const variant = (8 + intFn(4)).toString(16);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    },
  };
  return r;
}

/** Deterministic when seed is a number; otherwise Math.random for content and crypto for ints. */
export function createRandom(seed?: number): Random {
  if (seed !== undefined) {
    const next = mulberry32(seed);
    return build(next, (n) => Math.floor(next() * n));
  }
  return build(Math.random, (n) => randomInt(n));
}

/** Derive an independent stream (so adding a key does not shift the simulator's sequence). */
export function childRandom(seed: number | undefined, salt: number): Random {
  return createRandom(seed === undefined ? undefined : (seed * 2654435761 + salt) >>> 0);
}
