import { appEnv, forkChild } from "../childIpc.js";

/** One kind of timed key (scroll, search, …) drawn by Ink alone. */
export interface InkStepFigures {
  steps: number;
  /** Pairs whose second frame Ink did not write within 2 s. */
  missed: number;
  p50Ms: number;
  p99Ms: number;
  cpuP50Ms: number;
  cpuP99Ms: number;
}

export type InkStepsResult = Record<string, InkStepFigures>;

/**
 * The reference of a keyed row: inkStepsChild.tsx draws the frame pairs an app child recorded
 * (`steps`, a file of JSON lines { kind, before, after }) with Ink alone, on a terminal of
 * `columns` × `rows`; figures per kind of key.
 */
export async function measureInkSteps(
  steps: string,
  columns: number,
  rows: number,
  timeoutMs: number,
): Promise<InkStepsResult> {
  const child = forkChild("./inkStepsChild.js", { steps, columns, rows }, [], appEnv());
  try {
    const r = await child.next<{ type: string; kinds: InkStepsResult }>("result", timeoutMs);
    await child.exited;
    return r.kinds;
  } finally {
    child.kill();
  }
}
