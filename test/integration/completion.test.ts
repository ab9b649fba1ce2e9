import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

/**
 * `agent-sessions completion <shell>`: the script each shell loads, exercised in that shell.
 * bash is everywhere; zsh and fish are tested where installed.
 */

const has = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0;
const scripts: Record<string, string> = {};
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "as-completion-"));
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await runCli(["completion", shell]);
    expect(r.code, r.stderr).toBe(0);
    scripts[shell] = join(dir, `agent-sessions.${shell}`);
    writeFileSync(scripts[shell] as string, r.stdout);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `script` in `shell` (as its -c argument: fish will not read a piped script here). */
function run(shell: string, args: string[], script: string): string {
  const r = spawnSync(shell, [...args, "-c", script], { encoding: "utf8", timeout: 10_000 });
  if (r.status !== 0) throw new Error(`${shell} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** What bash offers after typing `words` (the last one is the word being completed). */
function bashComplete(...words: string[]): string[] {
  const quoted = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ");
  const out = run(
    "bash",
    ["--norc", "--noprofile"],
    `source ${scripts.bash}
COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}
complete -p agent-sessions >/dev/null || exit 3
_agent_sessions
printf '%s\\n' "\${COMPREPLY[@]}"`,
  );
  return out.split("\n").filter((l) => l !== "");
}

describe("bash completion", () => {
  it("completes command names from the program, and a prefix to the one it starts", () => {
    const all = bashComplete("agent-sessions", "");
    for (const c of ["whoami", "sessions", "watch", "git", "profiles", "serve", "completion"]) {
      expect(all).toContain(c);
    }
    expect(bashComplete("agent-sessions", "wh")).toEqual(["whoami"]);
    expect(bashComplete("agent-sessions", "se")).toEqual(["sessions", "serve"]);
  });

  it("completes subcommands, options, option choices and argument choices", () => {
    expect(bashComplete("agent-sessions", "git", "p")).toEqual(["push", "pr"]);
    expect(bashComplete("agent-sessions", "profiles", "")).toEqual(["use", "remove"]);
    expect(bashComplete("agent-sessions", "watch", "--m")).toEqual(["--max-events"]);
    expect(bashComplete("agent-sessions", "serve", "--line-ending", "")).toEqual([
      "lf",
      "crlf",
      "cr",
    ]);
    expect(bashComplete("agent-sessions", "completion", "")).toEqual(["bash", "zsh", "fish"]);
    expect(bashComplete("agent-sessions", "help", "git", "")).toEqual([
      "clone",
      "push",
      "branch",
      "pr",
    ]);
  });

  it("skips global options and their values on the way to the command", () => {
    expect(bashComplete("agent-sessions", "--profile", "work", "who")).toEqual(["whoami"]);
    expect(bashComplete("agent-sessions", "--base-url", "")).toEqual([]);
    expect(bashComplete("agent-sessions", "--p")).toEqual(["--profile"]);
  });

  it("never runs what is on the command line", () => {
    const marker = join(dir, "ran");
    bashComplete("agent-sessions", `$(touch ${marker})`, "");
    bashComplete("agent-sessions", "watch", `\`touch ${marker}\``, "");
    expect(spawnSync("test", ["-e", marker]).status).toBe(1);
  });
});

describe.skipIf(!has("zsh"))("zsh completion", () => {
  /** Calls the completion function with zsh's completion builtins replaced by printers. */
  function zshComplete(...words: string[]): string[] {
    const quoted = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ");
    const out = run(
      "zsh",
      ["-f"],
      `_describe() { shift 3; local n=$1; print -l -- \${(P)n} }
compadd() { shift; print -l -- "$@" }
compdef() { print -- "compdef $*" }
_default() { print -- "<default>" }
source ${scripts.zsh}
words=(${quoted}); CURRENT=${words.length}
_agent_sessions`,
    );
    return out.split("\n").filter((l) => l !== "");
  }

  it("registers itself and offers commands with their descriptions", () => {
    const out = zshComplete("agent-sessions", "");
    expect(out[0]).toBe("compdef _agent_sessions agent-sessions");
    expect(out).toContain(
      "whoami:show the key's metadata, the caller identity and the effective scopes",
    );
  });

  it("follows the command path and offers option values", () => {
    expect(
      zshComplete("agent-sessions", "git", "p")
        .slice(1)
        .map((l) => l.split(":")[0]),
    ).toEqual(["clone", "push", "branch", "pr", "help"]);
    expect(zshComplete("agent-sessions", "serve", "--line-ending", "").slice(1)).toEqual([
      "lf",
      "crlf",
      "cr",
    ]);
    expect(zshComplete("agent-sessions", "--profile", "x", "watch", "--").slice(1)).toContain(
      "--max-events:exit 0 after this many events (lines, each whole, without --json)",
    );
  });
});

describe.skipIf(!has("fish"))("fish completion", () => {
  function fishComplete(line: string): string[] {
    const out = run(
      "fish",
      ["--no-config"],
      `source ${scripts.fish}\ncomplete -C ${JSON.stringify(line)}`,
    );
    return out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => l.split("\t")[0] as string);
  }

  it("completes commands, subcommands, options and choices", () => {
    expect(fishComplete("agent-sessions wh")).toEqual(["whoami"]);
    expect(fishComplete("agent-sessions git p").sort()).toEqual(["pr", "push"]);
    expect(fishComplete("agent-sessions --profile x wh")).toEqual(["whoami"]);
    expect(fishComplete("agent-sessions watch --max")).toEqual(["--max-events"]);
    expect(fishComplete("agent-sessions serve --line-ending ").sort()).toEqual([
      "cr",
      "crlf",
      "lf",
    ]);
    expect(fishComplete("agent-sessions completion ").sort()).toEqual(["bash", "fish", "zsh"]);
  });
});

describe("completion command", () => {
  it("an unknown shell is a usage error naming the choices", async () => {
    const r = await runCli(["completion", "powershell"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});
