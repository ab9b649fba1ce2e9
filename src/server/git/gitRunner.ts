import { spawn } from "node:child_process";

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const TIMEOUT_MS = 60_000;

export const AUTHOR = { name: "Agent Sessions Demo", email: "agent@sessions.invalid" };

/**
 * Runs real git with an argument array (never a shell) in an environment that ignores the
 * machine's and the user's git configuration, so results do not depend on who runs the service.
 */
export class GitRunner {
  private readonly env: NodeJS.ProcessEnv;

  constructor(home: string) {
    this.env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: home,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_AUTHOR_NAME: AUTHOR.name,
      GIT_AUTHOR_EMAIL: AUTHOR.email,
      GIT_COMMITTER_NAME: AUTHOR.name,
      GIT_COMMITTER_EMAIL: AUTHOR.email,
      LC_ALL: "C",
      ...(process.env.SYSTEMROOT ? { SYSTEMROOT: process.env.SYSTEMROOT } : {}),
    };
  }

  /** Identity and quiet-advice flags, put before the subcommand. */
  static readonly baseArgs = [
    "-c",
    `user.name=${AUTHOR.name}`,
    "-c",
    `user.email=${AUTHOR.email}`,
    "-c",
    "init.defaultBranch=main",
    "-c",
    "advice.detachedHead=false",
    "-c",
    "core.autocrlf=false",
  ];

  /** Run git; never rejects (a failure to start is exit code 127 with the reason on stderr). */
  run(
    args: readonly string[],
    cwd: string,
    extraEnv?: NodeJS.ProcessEnv,
    input?: string,
  ): Promise<GitRun> {
    return new Promise((resolve) => {
      const child = spawn("git", [...GitRunner.baseArgs, ...args], {
        cwd,
        env: extraEnv ? { ...this.env, ...extraEnv } : this.env,
        stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      const collect = (into: Buffer[]) => (b: Buffer) => {
        size += b.length;
        if (size <= MAX_OUTPUT_BYTES) into.push(b);
      };
      child.stdout?.on("data", collect(out));
      child.stderr?.on("data", collect(err));
      const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
      let settled = false;
      const finish = (code: number, extra = "") => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          code,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8") + extra,
        });
      };
      child.on("error", (e) => finish(127, `\n${e.message}`));
      child.on("close", (code) => finish(code ?? 1));
      if (input !== undefined) {
        child.stdin?.on("error", () => undefined);
        child.stdin?.end(input);
      }
    });
  }

  /** Whether name is a valid branch name, asked of git itself. */
  async isValidBranchName(name: string, cwd: string): Promise<boolean> {
    if (name.startsWith("-") || name === "HEAD" || name.length > 200) return false;
    const r = await this.run(["check-ref-format", "--branch", name], cwd);
    return r.code === 0;
  }
}

/** Non-empty lines of git's output, in order, stdout first. */
export function outputLines(r: GitRun): string[] {
  return `${r.stdout}\n${r.stderr}`
    .split(/\r\n|\r|\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l !== "");
}
