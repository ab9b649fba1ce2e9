import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface PromptUiResult {
  offeredPerSecond: number;
  eventsPerSecond: number;
  /** Prompts typed and sent, and those whose answer was drawn to its end. */
  prompts: number;
  answersDone: number;
  /** Pieces of answers timed from their bytes' arrival to the frame showing them. */
  answerSamples: number;
  answerMisses: number;
  answerP50Ms: number;
  answerP99Ms: number;
  answerMaxMs: number;
  /** Keys typed into the prompt box, and those not shown within the bound. */
  keyPresses: number;
  keyMisses: number;
  keyP50Ms: number;
  keyP99Ms: number;
  cpuPct: number;
  rssMb: number;
}

/** B15's terminal. */
export const PROMPT_UI_SIZE = { columns: 200, rows: 50 };

/**
 * B15: the prompt child (promptChild.tsx) on 4 panes while the service floods them at
 * `perSecondPerSession` each (B4's load); it types and sends prompts in the focused pane for
 * `windowMs` after `warmupMs` of flood.
 */
export async function measurePromptUi(
  srv: RemoteServer,
  ids: readonly string[],
  perSecondPerSession: number,
  warmupMs: number,
  windowMs: number,
  missMs: number,
  /** Record the timed frames there, for B15-ink. */
  record?: string,
): Promise<PromptUiResult> {
  const child = forkChild(
    "./promptChild.js",
    {
      url: srv.url,
      key: srv.ownerKey,
      ids,
      ...PROMPT_UI_SIZE,
      warmupMs,
      windowMs,
      missMs,
      ...(record ? { record } : {}),
    },
    [],
    appEnv(),
  );
  try {
    await child.next("ready", 30_000);
    // The flood runs past the window by the longest a last prompt can take.
    const flood = srv.flood([...ids], perSecondPerSession, warmupMs + windowMs + 15_000);
    const { type: _type, ...r } = await child.next<
      Omit<PromptUiResult, "offeredPerSecond"> & { type: string }
    >("result", warmupMs + windowMs + 60_000);
    await flood;
    await child.exited;
    return { ...r, offeredPerSecond: perSecondPerSession * ids.length };
  } finally {
    child.kill();
  }
}
