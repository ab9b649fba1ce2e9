import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keychainAccount, keychainDelete } from "../../src/credentials/keychain.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { CLI, type CliResult, runCli, tempConfigHome } from "../helpers/cli.js";
import { keychainProblem } from "../helpers/keychainProbe.js";
import {
  cleanEnvCommand,
  shellQuote,
  type TmuxPane,
  TmuxServer,
  tmuxForSuite,
} from "../helpers/tmux.js";

/**
 * Every command line the README shows in its ```sh blocks is run here, or named in NOT_RUN
 * with the reason; a line that is neither fails the test, so a new README command cannot go
 * untested. `agent-sessions …` lines run the built CLI against the reference service started
 * here (the README's base URL replaced by its URL, keeping an /api/cloud suffix: the service
 * serves the cloud mount only, as the real one does; session placeholders replaced by one of
 * its session ids). `login` gets the key on stdin and stores it in the OS keychain; the lines
 * after it in the same block use what it stored (no key, no base URL in the environment).
 * Lines that open the terminal UI run in tmux: the first screen must show, `q` must quit with
 * exit 0. README_UNDER_TEST names another file to check (a draft), relative to the repository.
 */

const ROOT = join(import.meta.dirname, "..", "..");
const README = (() => {
  const p = process.env.README_UNDER_TEST;
  if (p === undefined || p === "") return join(ROOT, "README.md");
  return isAbsolute(p) ? p : resolve(ROOT, p);
})();

/** Lines the test does not run itself, and why. Matched against the whole command. */
const NOT_RUN: { pattern: RegExp; reason: string }[] = [
  {
    pattern: /^git clone (<this repository>|\S+)( \S+)?$/,
    reason: "the test runs inside a clone of this repository already",
  },
  { pattern: /^cd agent-sessions-tui$/, reason: "the test's working folder is that clone" },
  {
    pattern: /^npm ci$/,
    reason: "CI runs npm ci itself; node_modules is what the test runs with",
  },
  {
    pattern: /^npm install( -g)? agent-sessions-tui-\*\.tgz$/,
    reason: "test/e2e/npmPack.test.ts installs the packed tarball",
  },
  { pattern: /^npm pack$/, reason: "test/e2e/npmPack.test.ts packs and installs the tarball" },
  {
    pattern: /^npm link$/,
    reason:
      "it changes the machine's global PATH; the test runs dist/cli/main.js, which is what it links",
  },
  { pattern: /^npm test$/, reason: "this test is part of npm test; CI runs npm test itself" },
];

/** Arguments that open the terminal UI (run in tmux), given the arguments after global options. */
function opensUi(command: string[]): boolean {
  const first = command[0];
  if (first === undefined) return true;
  if (first === "demo") return !command.includes("--headless");
  return first === "open" || first === "fleet";
}

const GLOBAL_WITH_VALUE = new Set(["--base-url", "--profile", "--org"]);

interface ReadmeLine {
  /** 1-based line number in the README. */
  line: number;
  /** The command, comment stripped. */
  text: string;
  /** The exit code the README's comment names ("exit 3"), else 0. */
  exit: number;
}

interface Block {
  line: number;
  commands: ReadmeLine[];
}

/** Splits on `&&` outside quotes. */
function splitAnd(line: string): string[] {
  const parts: string[] = [];
  let cur = "";
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "&" && line[i + 1] === "&") {
      parts.push(cur.trim());
      cur = "";
      i++;
      continue;
    }
    cur += c;
  }
  parts.push(cur.trim());
  return parts.filter((p) => p !== "");
}

/** Removes a `# comment` (a # at the start or after a blank, outside quotes); returns both. */
function stripComment(line: string): { code: string; comment: string } {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] as string))) {
      return { code: line.slice(0, i).trimEnd(), comment: line.slice(i + 1) };
    }
  }
  return { code: line.trimEnd(), comment: "" };
}

/** Shell words: blanks separate, single and double quotes group (no expansions). */
function words(command: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  let quote: string | null = null;
  for (const c of command) {
    if (quote) {
      if (c === quote) quote = null;
      else cur = (cur ?? "") + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      cur ??= "";
    } else if (/\s/.test(c)) {
      if (cur !== null) out.push(cur);
      cur = null;
    } else {
      cur = (cur ?? "") + c;
    }
  }
  if (cur !== null) out.push(cur);
  return out;
}

function readmeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let block: Block | null = null;
  let pending = "";
  let pendingLine = 0;
  markdown.split("\n").forEach((raw, index) => {
    const lineNo = index + 1;
    if (block === null) {
      if (/^\s*```sh\s*$/.test(raw)) block = { line: lineNo, commands: [] };
      return;
    }
    if (/^\s*```\s*$/.test(raw)) {
      blocks.push(block);
      block = null;
      return;
    }
    const { code, comment } = stripComment(raw);
    if (pending === "") pendingLine = lineNo;
    if (code.endsWith("\\")) {
      pending += `${code.slice(0, -1)} `;
      return;
    }
    const full = (pending + code).trim();
    pending = "";
    if (full === "") return;
    const exit = Number(/\bexit (\d+)\b/.exec(comment)?.[1] ?? 0);
    for (const text of splitAnd(full)) block.commands.push({ line: pendingLine, text, exit });
  });
  return blocks;
}

const markdown = existsSync(README) ? readFileSync(README, "utf8") : "";
const blocks = readmeBlocks(markdown);

const TMUX = tmuxForSuite("README commands suite");
const keychainRequired = process.env.AGENT_SESSIONS_REQUIRE_KEYCHAIN === "1";
const usesLogin = blocks.some((b) =>
  b.commands.some((c) => /^agent-sessions\b.*\blogin\b/.test(c.text)),
);
const noKeychain = usesLogin ? await keychainProblem("agent-sessions-tui-readme-probe") : null;

type Plan =
  | { kind: "not-run"; reason: string }
  | { kind: "build" }
  | { kind: "cli"; args: string[]; ui: boolean; login: boolean }
  | { kind: "unknown" };

function plan(text: string): Plan {
  for (const n of NOT_RUN) if (n.pattern.test(text)) return { kind: "not-run", reason: n.reason };
  if (text === "npm run build") return { kind: "build" };
  // `npm run demo` is `npm run build` (done before every line) then `agent-sessions demo`.
  if (text === "npm run demo") return { kind: "cli", args: ["demo"], ui: true, login: false };
  // The key piped into login (`pass show … | agent-sessions login`, `login < key.txt`) is what
  // the test gives it on stdin.
  const keyOnStdin = text
    .replace(/^[^|]+\|\s*(?=agent-sessions\b)/, "")
    .replace(/\s*<\s*[^\s<>|]+$/, "");
  if (keyOnStdin !== text && /^agent-sessions\b.*\blogin\b/.test(keyOnStdin)) {
    return plan(keyOnStdin);
  }
  // Shell syntax the test does not reproduce (pipes, redirections, expansions); a <placeholder>
  // is a word, not a redirection.
  if (/[|;<>`$()]/.test(text.replace(/<[^<>\s]+>/g, "X"))) return { kind: "unknown" };
  const argv = words(text);
  if (argv[0] !== "agent-sessions") return { kind: "unknown" };
  const args = argv.slice(1);
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith("--")) {
    i += GLOBAL_WITH_VALUE.has(args[i] as string) ? 2 : 1;
  }
  const command = args.slice(i);
  return { kind: "cli", args, ui: opensUi(command), login: command[0] === "login" };
}

const SESSION_PLACEHOLDER = /^(<[^>]*>|ses_…|ses_\.\.\.|SESSION(_ID)?|<?ses_[^\s>]*…>?)$/;

describe("the README's commands", () => {
  it(`${README} has sh blocks with commands`, () => {
    expect(markdown, `${README} is missing or empty`).not.toBe("");
    expect(blocks.flatMap((b) => b.commands).length).toBeGreaterThan(0);
  });

  it("every command line is run by this test or listed in NOT_RUN with the reason", () => {
    const unknown = blocks
      .flatMap((b) => b.commands)
      .filter((c) => plan(c.text).kind === "unknown")
      .map((c) => `  line ${c.line}: ${c.text}`);
    expect(
      unknown,
      `these README lines are neither run by test/e2e/readme.test.ts nor listed in its NOT_RUN:\n${unknown.join("\n")}`,
    ).toEqual([]);
  });
});

describe.skipIf(!TMUX || blocks.length === 0)("the README's sh blocks, run", () => {
  const tmux = new TmuxServer();
  let server: ReferenceServer;
  let ids: string[];
  const homes: ReturnType<typeof tempConfigHome>[] = [];
  const accounts: string[] = [];
  const panes: TmuxPane[] = [];
  let count = 0;

  beforeAll(async () => {
    // What the README's install block ends with, and what every line after it needs.
    const build = await new Promise<{ code: number; output: string }>((done) => {
      execFile(
        "npm",
        ["run", "build"],
        { cwd: ROOT, encoding: "utf8", timeout: 120_000 },
        (error, stdout, stderr) => done({ code: error ? 1 : 0, output: `${stdout}${stderr}` }),
      );
    });
    expect(build.code, `npm run build failed:\n${build.output}`).toBe(0);
    expect(existsSync(CLI)).toBe(true);
    server = await startServer({ seed: 5, sessionCount: 3, paceMs: 300, mount: "cloud" });
    ids = server.sessionIds();
    await tmux.run(["start-server", ";", "set-option", "-s", "exit-empty", "off"]);
  }, 150_000);

  afterAll(async () => {
    await Promise.all(panes.splice(0).map((p) => p.kill()));
    await tmux.kill();
    for (const a of accounts) await keychainDelete(a).catch(() => {});
    await server?.close();
    for (const h of homes) h.cleanup();
  });

  /** The README's arguments with its base URL and placeholders made real. */
  function substitute(args: string[]): string[] {
    return args.map((a) => {
      const url = /^https?:\/\/[^/\s]+(\/\S*)?$/.exec(a);
      if (url) return `${server.url}${/\/api\/cloud\/?$/.test(url[1] ?? "") ? "/api/cloud" : ""}`;
      if (SESSION_PLACEHOLDER.test(a)) return ids[0] as string;
      return a;
    });
  }

  async function inTmux(
    args: string[],
    env: Record<string, string | undefined>,
    stderrFile: string,
  ): Promise<void> {
    const app = cleanEnvCommand({ LANG: "C.UTF-8", AGENT_SESSIONS_BELL: "0", ...env }, [
      process.execPath,
      CLI,
      ...args,
    ]);
    const pane = await tmux.start(
      `r${++count}`,
      `${app} 2>${shellQuote(stderrFile)}; echo "EXIT=$?"; exec sleep 600`,
      {
        width: 140,
        height: 40,
      },
    );
    panes.push(pane);
    // The first screen: the session list (or the fleet table) shows a session.
    const first = await pane.waitFor(
      "the first screen with a session",
      (s) => /\bses_\w+/.test(s) || s.includes("EXIT="),
      { timeoutMs: 15_000 },
    );
    expect(first, `agent-sessions ${args.join(" ")} ended before its first screen`).not.toContain(
      "EXIT=",
    );
    await pane.keys("q");
    const end = await pane.waitForText("EXIT=", { timeoutMs: 10_000 });
    expect(end, `agent-sessions ${args.join(" ")} after q`).toMatch(/EXIT=0\b/);
    await pane.kill();
    const stderr = readFileSync(stderrFile, "utf8");
    expect(stderr, `agent-sessions ${args.join(" ")} wrote on stderr`).not.toMatch(/^error:/m);
  }

  for (const block of blocks) {
    const hasLogin = block.commands.some((c) => {
      const p = plan(c.text);
      return p.kind === "cli" && p.login;
    });
    const hasCli = block.commands.some((c) => {
      const p = plan(c.text);
      return p.kind === "cli" || p.kind === "build";
    });
    const title = `README line ${block.line}: ${block.commands.map((c) => c.text).join("; ")}`;
    if (!hasCli) {
      it.skip(`${title} (nothing to run: every line is in NOT_RUN)`, () => {});
      continue;
    }
    if (hasLogin && noKeychain && !keychainRequired) {
      it.skip(`${title} (login needs the OS keychain: ${noKeychain})`, () => {});
      continue;
    }
    it(title, { timeout: 60_000 }, async () => {
      if (hasLogin && noKeychain) {
        throw new Error(`no usable OS keychain (AGENT_SESSIONS_REQUIRE_KEYCHAIN=1): ${noKeychain}`);
      }
      const home = tempConfigHome();
      homes.push(home);
      const base: Record<string, string | undefined> = {
        HOME: home.dir,
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        XDG_CONFIG_HOME: join(home.dir, "config"),
        XDG_STATE_HOME: join(home.dir, "state"),
        XDG_CACHE_HOME: join(home.dir, "cache"),
        DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS,
        XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR,
      };
      let loggedIn = false;
      for (const line of block.commands) {
        const p = plan(line.text);
        if (p.kind !== "cli") continue; // not-run lines are listed; the build ran in beforeAll
        const args = substitute(p.args);
        // Before a login: what a script sets. After it: only what login stored.
        const env: Record<string, string | undefined> = loggedIn
          ? { ...base }
          : {
              ...base,
              AGENT_SESSIONS_BASE_URL: `${server.url}/api/cloud`,
              AGENT_SESSIONS_API_KEY: p.login ? undefined : server.key("owner"),
            };
        if (p.login) {
          const i = args.indexOf("--base-url");
          const url = i >= 0 ? (args[i + 1] as string) : `${server.url}/api/cloud`;
          const j = args.indexOf("--profile");
          accounts.push(keychainAccount(j >= 0 ? (args[j + 1] as string) : "default", url));
        }
        if (p.ui) {
          // A UI that does not show or quit is reported with the block's other failures.
          const failed = await inTmux(args, env, join(home.dir, `stderr-${line.line}`)).then(
            () => undefined,
            (e: Error) => e.message,
          );
          expect.soft(failed, `line ${line.line} (${args.join(" ")}) in tmux`).toBeUndefined();
        } else {
          // Bounded: a command that does not end in 15 s (a watch without --max-events) fails.
          const r: CliResult = await runCli(args, {
            env,
            timeoutMs: 15_000,
            ...(p.login ? { input: `${server.key("owner")}\n` } : {}),
          }).catch((e: Error) => ({ code: null, stdout: "", stderr: e.message }));
          const shown = `line ${line.line} (${args.join(" ")}) stdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
          expect.soft(r.code, shown).toBe(line.exit);
          // A command the README shows failing says why on stderr; any other must not.
          if (line.exit === 0) expect.soft(r.stderr, shown).not.toMatch(/^error:/m);
        }
        if (p.login) loggedIn = true;
      }
    });
  }
});
