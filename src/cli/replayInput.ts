import { readFile } from "node:fs/promises";
import { EXIT } from "../client/errors.js";
import { buildRecording, type Recording } from "../store/history/recording.js";
import { parseReplayTime, REPLAY_TIME_HELP } from "../store/replay/replayTime.js";
import { fsReason } from "./journal/fileJournal.js";

/** Reading recordings and the replay flags, shared by `replay` and `snapshot --replay`. */

/** Bad replay input: what is wrong and what to give instead (exit 2). */
export class ReplayInputError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "ReplayInputError";
  }
}

/** The files' events; a file that cannot be read, or no event at all, is a usage error. */
export async function readRecording(
  paths: readonly string[],
  session?: string,
): Promise<Recording> {
  const files: { name: string; text: string }[] = [];
  for (const path of paths) {
    try {
      files.push({ name: path, text: await readFile(path, "utf8") });
    } catch (e) {
      throw new ReplayInputError(
        `cannot read ${path}: ${fsReason(e)}`,
        "Give NDJSON files: the output of watch --json, a pane's e export, or a journal file (agent-sessions journal path).",
      );
    }
  }
  const recording = buildRecording(files, session !== undefined ? { session } : {});
  if (recording.events.length === 0) {
    throw new ReplayInputError(
      `no events in ${paths.join(", ")}`,
      "Give NDJSON files: the output of watch --json, a pane's e export, or a journal file.",
    );
  }
  return recording;
}

/** `--at` against a recording: a clear usage error when it is not a time. */
export function replayTimeOf(text: string, recording: Recording): number {
  const at = parseReplayTime(text, recording.start, recording.end);
  if (at === null) {
    throw new ReplayInputError(
      `--at ${JSON.stringify(text)} is not a time`,
      `Give ${REPLAY_TIME_HELP}.`,
    );
  }
  return at;
}
