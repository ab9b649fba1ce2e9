import type { Random } from "./random.js";

/** One planned simulated event; the timestamp is added when it is emitted. */
export type PlannedEvent =
  | { event: "prompt_progress"; payload: { type: "text"; content: string } }
  | { event: "process_output"; payload: OutputPayload }
  | { event: "file_changed"; payload: { path: string; action: FileAction } };

/**
 * Process output in the shapes real servers send (the interface leaves it open): `{stream,
 * text}`, `{content}` and `{stream, data}`; the text sits in `field`.
 */
export type OutputPayload = { stream?: "stdout" | "stderr" } & Partial<Record<OutputField, string>>;
export type OutputField = "text" | "content" | "data";

/** The field an output payload carries its text in. */
export function outputField(p: OutputPayload): OutputField {
  return p.text !== undefined ? "text" : p.content !== undefined ? "content" : "data";
}

export type FileAction = "created" | "modified" | "deleted";

const FILES = [
  "src/config/load.ts",
  "src/server/handler.ts",
  "src/client/http.ts",
  "src/utils/retry.ts",
  "test/config.test.ts",
  "test/handler.test.ts",
  "docs/guide.md",
  "README.md",
  "package.json",
];

const SENTENCES = [
  "Let me look at {file} first to understand how the config is loaded.",
  "The failing test expects a 404, but the handler returns 500 when the id is unknown.",
  "I'll add a guard for missing ids and a regression test for it.",
  "Running the test suite to check that nothing else broke.",
  "All {n} tests pass now, so next I'll update the docs.",
  "The retry loop never backs off, so I'm adding exponential backoff with jitter.",
  "Found the cause: the cache key ignores the tenant id.",
  "Updating {file} to use the shared helper instead of parsing twice.",
  "The type check is clean; preparing a summary of the changes.",
  "Reading the CI log: the job times out while installing dependencies.",
  "Pinning the lockfile version should make the install reproducible.",
  "This touches {file} as well, because it imports the old helper.",
];

/** Output of a few commands an agent runs, one line per event. */
const COMMANDS: readonly (readonly [stream: "stdout" | "stderr", text: string])[][] = [
  [
    ["stdout", "$ npm test"],
    ["stdout", "> demo-app@1.0.0 test"],
    ["stdout", "> vitest run"],
    ["stdout", " ✓ test/config.test.ts (8 tests) 12ms"],
    ["stdout", " ✓ test/retry.test.ts (5 tests) 31ms"],
    ["stderr", " × test/handler.test.ts > returns 404 for unknown ids"],
    ["stderr", "   AssertionError: expected 500 to be 404"],
    ["stdout", " Test Files  1 failed | 2 passed (3)"],
    ["stdout", "      Tests  1 failed | 13 passed (14)"],
  ],
  [
    ["stdout", "$ npm test"],
    ["stdout", " ✓ test/config.test.ts (8 tests) 11ms"],
    ["stdout", " ✓ test/handler.test.ts (6 tests) 25ms"],
    ["stdout", " ✓ test/retry.test.ts (5 tests) 29ms"],
    ["stdout", " Test Files  3 passed (3)"],
    ["stdout", "      Tests  19 passed (19)"],
  ],
  [
    ["stdout", "$ npx tsc --noEmit"],
    [
      "stderr",
      "src/config/load.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    ],
    ["stdout", "Found 1 error in src/config/load.ts:42"],
  ],
  [
    ["stdout", "$ npm run lint"],
    ["stdout", "Checked 48 files in 31ms. No fixes applied."],
  ],
  [
    ["stdout", "$ git status --short"],
    ["stdout", " M src/config/load.ts"],
    ["stdout", "?? src/utils/retry.ts"],
  ],
  [
    ["stdout", "$ npm install"],
    ["stderr", "npm warn deprecated inflight@1.0.6: This module is not supported"],
    ["stdout", "added 3 packages, and audited 212 packages in 2s"],
    ["stdout", "found 0 vulnerabilities"],
  ],
];

/**
 * Escape sequences a hostile or merely colourful process can print. A terminal client must not
 * let any of the hostile ones reach the user's terminal.
 */
export const HOSTILE_SEQUENCES = [
  "\x1b]52;c;ZWNobyBwd25lZA==\x07", // OSC 52: write the clipboard
  "\x1b]0;you have been pwned\x07", // OSC 0: set the window title
  "\x1b[2J\x1b[H", // clear screen, cursor home
  "\x1b[5A\x1b[2K", // cursor up, erase line
  "\x07", // BEL
  "\u009b31mC1 CSI\u009b0m", // 8-bit CSI
  "\x1bP+q544e\x1b\\", // DCS request
  "\x1b]8;;https://example.invalid/\x07a link\x1b]8;;\x07", // OSC 8 hyperlink
  "\x1b]2;unterminated title", // OSC with no terminator
] as const;

/** Colour a line and sometimes append a hostile sequence (escape fault, applied at emit time). */
export function withEscapes(text: string, rand: Random): string {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  const coloured = colour(body);
  const hostile = rand.next() < 0.35 ? rand.pick(HOSTILE_SEQUENCES) : "";
  return `${coloured}${hostile}${body === text ? "" : "\n"}`;
}

function colour(text: string): string {
  return text
    .replace(/✓/g, "\x1b[32m✓\x1b[39m")
    .replace(/×/g, "\x1b[31m×\x1b[39m")
    .replace(/error/g, "\x1b[1;31merror\x1b[0m");
}

/** Split a sentence into 1–4 word fragments that join back to the sentence plus a space. */
function fragments(sentence: string, rand: Random): string[] {
  const words = sentence.split(" ");
  const out: string[] = [];
  let i = 0;
  while (i < words.length) {
    const n = 1 + rand.int(4);
    out.push(`${words.slice(i, i + n).join(" ")} `);
    i += n;
  }
  return out;
}

export function thinkingEpisode(rand: Random): PlannedEvent[] {
  const sentences = 1 + rand.int(3);
  const out: PlannedEvent[] = [];
  for (let s = 0; s < sentences; s++) {
    const sentence = rand
      .pick(SENTENCES)
      .replace("{file}", rand.pick(FILES))
      .replace("{n}", String(12 + rand.int(200)));
    for (const content of fragments(sentence, rand)) {
      out.push({ event: "prompt_progress", payload: { type: "text", content } });
    }
  }
  const last = out[out.length - 1];
  if (last?.event === "prompt_progress")
    last.payload.content = `${last.payload.content.trimEnd()}\n`;
  return out;
}

/** One command's lines in one of the shapes, picked by the command (no extra random draw). */
function outputPayload(shape: number, stream: "stdout" | "stderr", text: string): OutputPayload {
  if (shape === 1 && stream === "stdout") return { content: text };
  if (shape === 2) return { stream, data: text };
  return { stream, text };
}

export function commandEpisode(rand: Random): PlannedEvent[] {
  const lines = rand.pick(COMMANDS);
  const shape = COMMANDS.indexOf(lines) % 3;
  return lines.map(([stream, line]) => ({
    event: "process_output",
    payload: outputPayload(shape, stream, `${line}\n`),
  }));
}

/** Placeholder file changes; a cloned session replaces them with files really written. */
export function editEpisode(rand: Random): PlannedEvent[] {
  const n = 1 + rand.int(3);
  const out: PlannedEvent[] = [];
  for (let i = 0; i < n; i++) {
    const r = rand.next();
    const action: FileAction = r < 0.2 ? "created" : r < 0.9 ? "modified" : "deleted";
    out.push({ event: "file_changed", payload: { path: rand.pick(FILES), action } });
  }
  return out;
}

export function nextEpisode(rand: Random): PlannedEvent[] {
  const r = rand.next();
  if (r < 0.45) return thinkingEpisode(rand);
  if (r < 0.8) return commandEpisode(rand);
  return editEpisode(rand);
}
