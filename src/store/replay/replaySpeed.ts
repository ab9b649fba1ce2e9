/** The speeds a replay plays at; the command line checks `--speed` against them at start-up. */
export type ReplaySpeed = 1 | 10 | 100 | "max";
export const REPLAY_SPEEDS: readonly ReplaySpeed[] = [1, 10, 100, "max"];
