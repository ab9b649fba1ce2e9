import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import { AgentSessionsError, EXIT, HttpError, UsageError } from "../../client/errors.js";
import { openUrl } from "../../local/openUrl.js";
import type { DiffReading } from "../../protocol/gitReview.js";
import { historyItem } from "../../protocol/history.js";
import { browsableUrl, lastPromptStart } from "../../protocol/review.js";
import {
  type DiffFile,
  type DiffIndex,
  diffFilePath,
  diffTotals,
  fileText,
  indexUnifiedDiff,
  selectFiles,
} from "../../protocol/unifiedDiff.js";
import { formatBytes } from "../../text/format.js";
import { sanitize, sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { endText, err, fail, out, outRaw, outText, printJson, redact, table } from "../output.js";
import { colorFor, hasTerminal, outputIsTerminal } from "../terminalCheck.js";

/**
 * The review commands: what a session changed (`diff`), its files (`files`, `cat`), undoing
 * its last prompt (`rewind`), opening its URLs (`browse`) and its ports (`ports`). Server
 * text reaches a terminal only through the output guard (sanitized, the key redacted); a
 * patch or a file sent to a pipe is written byte for byte (so `git apply` takes it), with only
 * the key redacted, said on stderr when that happened.
 */

/** One client for the command, closed after; errors reported with their hint. */
export async function withClient(
  cmd: Command,
  id: string,
  run: (client: ApiClient) => Promise<void>,
): Promise<void> {
  let client: ApiClient | null = null;
  try {
    const ctx = await commandContext(cmd);
    client = ctx.client;
    await run(client);
  } catch (e) {
    fail(e, stateHint(e, id));
  } finally {
    await client?.close();
  }
}

/** A paused session: what to run to resume it (the service refuses work in it until then). */
export function stateHint(e: unknown, id: string): string | null {
  if (e instanceof HttpError && /not running \(state: paused\)/i.test(e.message)) {
    return `The session is paused: resume it (agent-sessions resume ${id}), then run this again.`;
  }
  return null;
}

/** The patch of the session, or an error that says why there is none to read. */
export async function sessionPatch(client: ApiClient, id: string): Promise<string> {
  const { answer, reading } = await client.gitDiff(id);
  if (!answer.ok) {
    throw new ReviewError(
      `git diff failed in ${id}: ${answer.error ?? "the service says it did not succeed"}`,
      "The service ran git diff and says it failed; its words say why.",
    );
  }
  return patchOf(reading);
}

function patchOf(reading: DiffReading): string {
  if (reading.kind === "empty") return "";
  if (reading.kind === "patch") return reading.patch;
  throw new ReviewError(
    `the service's diff answer could not be read: ${reading.reason}`,
    "Its result is operation-specific and this one carried no patch this client can find; agent-sessions files and cat read the files themselves.",
  );
}

/** A failure these commands name themselves: its words, its hint, its exit code. */
export class ReviewError extends AgentSessionsError {
  readonly code = "review";
  constructor(
    message: string,
    readonly hint: string,
    readonly exitCode: (typeof EXIT)[keyof typeof EXIT] = EXIT.error,
  ) {
    super(message);
    this.name = "ReviewError";
  }
}

/** The key redacted from text bound for a pipe; said on stderr when it was there. */
function redactedForPipe(text: string, what: string): string {
  const safe = redact(text);
  if (safe !== text) {
    err(`warning: the ${what} held your API key; it was replaced by [redacted key] in the output`);
  }
  return safe;
}

const SGR = {
  add: "\x1b[32m",
  del: "\x1b[31m",
  hunk: "\x1b[36m",
  head: "\x1b[1m",
  off: "\x1b[0m",
};

/** A patch for a person: each line sanitized first, then coloured by what it is. */
function printPatchOnTerminal(index: DiffIndex, files: readonly DiffFile[]): void {
  const color = colorFor(process.stdout);
  for (const f of files) {
    const text = fileText(index, f);
    let inHunk = false;
    for (const raw of text.split("\n")) {
      if (raw === "") continue;
      const line = sanitize(raw.replace(/\r$/, ""));
      let paint = "";
      if (line.startsWith("@@")) {
        inHunk = true;
        paint = SGR.hunk;
      } else if (line.startsWith("diff --git")) {
        inHunk = false;
        paint = SGR.head;
      } else if (inHunk && line.startsWith("+")) paint = SGR.add;
      else if (inHunk && line.startsWith("-")) paint = SGR.del;
      else if (!inHunk) paint = SGR.head;
      out(color && paint ? `${paint}${line}${SGR.off}` : line);
    }
  }
}

function statusWord(f: DiffFile): string {
  if (f.status === "renamed") return `renamed from ${f.oldPath ?? "?"}`;
  if (f.status === "copied") return `copied from ${f.oldPath ?? "?"}`;
  return f.status;
}

export async function runDiff(
  cmd: Command,
  id: string,
  paths: string[],
  opts: { stat: boolean; json: boolean },
): Promise<void> {
  await withClient(cmd, id, async (client) => {
    const patch = await sessionPatch(client, id);
    const index = indexUnifiedDiff(patch);
    const files = selectFiles(index, paths);
    const totals = diffTotals(files);
    if (opts.json) {
      printJson({
        session_id: id,
        files: files.map((f) => ({
          path: diffFilePath(f),
          old_path: f.oldPath,
          status: f.status,
          binary: f.binary,
          added: f.added,
          removed: f.removed,
        })),
        added: totals.added,
        removed: totals.removed,
        patch: files.map((f) => fileText(index, f)).join(""),
      });
      return;
    }
    if (files.length === 0) {
      err(
        index.files.length === 0
          ? `${id} has no changes`
          : `no changes under ${paths.map(sanitizeLine).join(", ")} (${index.files.length} files changed elsewhere)`,
      );
      return;
    }
    if (opts.stat) {
      const rows = files.map((f) => [
        sanitizeLine(diffFilePath(f)),
        f.binary ? "binary" : `+${f.added}`,
        f.binary ? "" : `-${f.removed}`,
        f.status === "modified" ? "" : statusWord(f),
      ]);
      for (const line of table(["file", "added", "removed", ""], rows).split("\n"))
        out(line.trimEnd());
      out(
        `${totals.files} file${totals.files === 1 ? "" : "s"} changed, ${totals.added} insertion${totals.added === 1 ? "" : "s"}(+), ${totals.removed} deletion${totals.removed === 1 ? "" : "s"}(-)`,
      );
      return;
    }
    if (outputIsTerminal()) printPatchOnTerminal(index, files);
    else outRaw(redactedForPipe(files.map((f) => fileText(index, f)).join(""), "diff"));
  });
}

export async function runFiles(
  cmd: Command,
  id: string,
  path: string,
  opts: { recursive: boolean; json: boolean },
): Promise<void> {
  await withClient(cmd, id, async (client) => {
    const { files: entries, truncated } = await client.listFilesBounded(id, {
      path,
      recursive: opts.recursive,
    });
    if (truncated) {
      // Said and exit 7 (incomplete), whatever the form: what came is still printed.
      err(
        `warning: the list is incomplete: the service listed ${entries.length} entries and cut it there`,
      );
      process.exitCode = EXIT.incomplete;
    }
    if (opts.json) {
      printJson(truncated ? [...entries, { incomplete: true, listed: entries.length }] : entries);
      return;
    }
    if (entries.length === 0) {
      err(`${sanitizeLine(path)} is empty in ${id}`);
      return;
    }
    const rows = entries.map((e) => [
      e.type === "directory" ? "dir" : e.type,
      e.type === "directory" || e.size === null ? "" : formatBytes(e.size),
      sanitizeLine(e.path),
    ]);
    for (const line of table(["type", "size", "path"], rows).split("\n")) out(line);
  });
}

export async function runCat(cmd: Command, id: string, path: string): Promise<void> {
  await withClient(cmd, id, async (client) => {
    const file = await client.readFile(id, path);
    if (!outputIsTerminal()) {
      outRaw(
        file.binary ? file.bytes : redactedForPipe(new TextDecoder().decode(file.bytes), "file"),
      );
      return;
    }
    if (file.binary) {
      throw new UsageError(
        `${sanitizeLine(path)} is a binary file (${formatBytes(file.bytes.length)}): not printed on a terminal`,
        `Send it to a file: agent-sessions cat ${id} ${path} > file`,
      );
    }
    // On a terminal: every escape sequence of the file removed, the key redacted.
    outText(sanitize(new TextDecoder().decode(file.bytes)));
    endText();
  });
}

/** Asks on the terminal; true for y or yes. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

/**
 * What a rewind would revert, as well as the client can tell before it asks: the file changes
 * the session's history logged since its last prompt began, else the files `git status`
 * lists as changed (a superset, said so), else nothing known. Each line sanitized.
 */
async function lastPromptFiles(
  client: ApiClient,
  id: string,
): Promise<{ files: string[]; from: "history" | "status" | "none" }> {
  const record = (await client.getSession(id)) as Record<string, unknown>;
  const started = lastPromptStart(record);
  const history = started === null ? null : await client.sessionHistory(id).catch(() => null);
  const seen = new Map<string, string>();
  for (const entry of history?.events ?? []) {
    const item = historyItem(entry);
    if (!item.ok || item.event !== "file_changed" || (item.at ?? 0) < (started ?? 0)) continue;
    const d = JSON.parse(item.data) as { path: string; action: string };
    seen.set(d.path, d.action);
  }
  if (seen.size > 0) {
    return {
      files: [...seen].map(([path, action]) => `${sanitizeLine(action)} ${sanitizeLine(path)}`),
      from: "history",
    };
  }
  const status = await client.gitStatus(id).catch(() => null);
  if (status?.reading.kind === "status" && status.reading.files.length > 0) {
    return {
      files: status.reading.files.map((f) => `${sanitizeLine(f.change)} ${sanitizeLine(f.path)}`),
      from: "status",
    };
  }
  return { files: [], from: "none" };
}

export async function runRewind(
  cmd: Command,
  id: string,
  opts: { yes: boolean; json: boolean },
): Promise<void> {
  if (!opts.yes && !hasTerminal()) {
    fail(
      new UsageError(
        `rewind reverts the files of ${id}'s last prompt: it asks first, and there is no terminal to ask on`,
        `Pass --yes to rewind without asking: agent-sessions rewind ${id} --yes`,
      ),
    );
    return;
  }
  await withClient(cmd, id, async (client) => {
    if (!opts.yes) {
      const { files, from } = await lastPromptFiles(client, id);
      if (from === "history")
        err(`The last prompt of ${id} changed these files; they will be reverted:`);
      else if (from === "status") {
        err(`Files changed in ${id}; those its last prompt changed will be reverted:`);
      } else err(`The files ${id}'s last prompt changed could not be listed.`);
      for (const f of files.slice(0, 50)) err(`  ${f}`);
      if (files.length > 50) err(`  … and ${files.length - 50} more`);
      if (!(await confirm(`Rewind the last prompt of ${id}? [y/N] `))) {
        err("Nothing was rewound.");
        return;
      }
    }
    const r = await client.rewindPrompt(id);
    if (opts.json)
      printJson({ session_id: r.sessionId, rewound: r.rewound, reverted_files: r.revertedFiles });
    if (!r.rewound) {
      err(`error: ${id} was not rewound: the service says there was nothing to undo`);
      err("hint: The last prompt may have changed no files, or was rewound already.");
      process.exitCode = EXIT.error;
      return;
    }
    if (opts.json) return;
    out(
      `rewound the last prompt of ${id}: ${r.revertedFiles.length} file${r.revertedFiles.length === 1 ? "" : "s"} reverted`,
    );
    for (const f of r.revertedFiles) out(`  ${sanitizeLine(f)}`);
  });
}

/** What `browse` opens (its definition lists the same choices). */
export type BrowseTarget = "preview" | "pr" | "sandbox" | "id";

/** A URL field of a record, read leniently (a string, or an object with a url). */
function urlField(record: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = record[k];
    if (typeof v === "string" && v !== "") return v;
    if (v !== null && typeof v === "object") {
      const o = v as Record<string, unknown>;
      const u = o.html_url ?? o.url;
      if (typeof u === "string" && u !== "") return u;
    }
  }
  return null;
}

const URL_FIELDS: Record<Exclude<BrowseTarget, "id">, readonly string[]> = {
  preview: ["preview_url"],
  pr: ["pr_url", "pull_request_url", "pull_request"],
  sandbox: ["sandbox_url"],
};

const MISSING_HINT: Record<Exclude<BrowseTarget, "id">, (id: string) => string> = {
  preview: (id) =>
    `A preview exists once its app runs; agent-sessions ports ${id} lists what listens.`,
  pr: (id) => `Open one first: agent-sessions git pr ${id} --title "…"`,
  sandbox: () => "The service did not give its sandbox a URL.",
};

/** Opens a URL, or prints it (asked to, or where no opener exists); never server text raw. */
async function openOrPrint(raw: string, what: string, print: boolean): Promise<void> {
  const url = browsableUrl(raw);
  if (url === null) {
    throw new ReviewError(
      `the ${what} URL the service sent is not an http(s) URL: ${sanitizeLine(raw).slice(0, 200)}`,
      "It was not opened: only http and https URLs are.",
    );
  }
  if (print) {
    out(url);
    return;
  }
  const r = await openUrl(url);
  if (r.kind === "opened") err(`opened ${url}`);
  else {
    err("no browser opener (xdg-open or open) here: the URL is printed instead");
    out(url);
  }
}

export async function runBrowse(
  cmd: Command,
  id: string,
  what: BrowseTarget | null,
  print: boolean,
): Promise<void> {
  if (what === "id") {
    out(id);
    return;
  }
  await withClient(cmd, id, async (client) => {
    const record = (await client.getSession(id)) as Record<string, unknown>;
    const target = what ?? (urlField(record, URL_FIELDS.preview) !== null ? "preview" : "sandbox");
    const url = urlField(record, URL_FIELDS[target]);
    if (url === null) {
      throw new ReviewError(
        `${id} has no ${target === "pr" ? "pull request" : target} URL`,
        MISSING_HINT[target](id),
      );
    }
    await openOrPrint(url, target, print);
  });
}

export async function runPorts(
  cmd: Command,
  id: string,
  opts: { connect: number | null; print: boolean; json: boolean },
): Promise<void> {
  await withClient(cmd, id, async (client) => {
    if (opts.connect !== null) {
      const c = await client.connectPort(id, opts.connect);
      if (opts.json) printJson({ preview_url: c.previewUrl, port: c.port });
      else await openOrPrint(c.previewUrl, `port ${opts.connect} preview`, opts.print);
      return;
    }
    const state = await client.workspaceState(id);
    if (opts.json) {
      printJson({ detected_ports: state.ports, running_processes: state.processes });
      return;
    }
    if (state.ports.length === 0) err(`nothing listens in ${id}'s sandbox`);
    else {
      const rows = state.ports.map((p) => [String(p.port), sanitizeLine(p.process ?? "")]);
      for (const line of table(["port", "process"], rows).split("\n")) out(line.trimEnd());
    }
    if (state.processes.length > 0) {
      err(
        `running: ${state.processes.map((p) => sanitizeLine(`${p.command}${p.pid !== null ? ` (${p.pid})` : ""}`)).join(", ")}`,
      );
    }
  });
}
