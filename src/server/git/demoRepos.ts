import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AUTHOR, type GitRunner, outputLines } from "./gitRunner.js";

/** The repositories a fresh service offers, by name, with their initial files. */
const DEMO_REPOS: Readonly<Record<string, Record<string, string>>> = {
  "demo/app": {
    "README.md": "# demo/app\n\nA small service the simulated agents work on.\n",
    "package.json": `${JSON.stringify({ name: "demo-app", version: "1.0.0", type: "module", scripts: { test: "vitest run" } }, null, 2)}\n`,
    "src/index.ts": "export function greet(name: string): string {\n  return 'hello ' + name;\n}\n",
    "src/config/load.ts": "export const DEFAULT_PORT = 8080;\n",
    "test/config.test.ts": "// tests for src/config/load.ts\n",
  },
  "demo/docs": {
    "README.md": "# demo/docs\n\nDocumentation the simulated agents keep up to date.\n",
    "docs/guide.md": "# Guide\n\nStart here.\n",
    "docs/api.md": "# API\n\nEndpoints are listed here.\n",
  },
};

/** Extra branches, so cloning with --branch has something to pick. */
const EXTRA_BRANCHES: Readonly<Record<string, string[]>> = { "demo/app": ["develop"] };

/** A fixed date makes the initial commits (and so their ids) the same on every run. */
const SEED_EPOCH = 1_704_067_200; // 2024-01-01T00:00:00Z

function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/** A git fast-import stream: one commit on main with the files, plus the extra branches. */
function importStream(name: string, files: Record<string, string>): string {
  const who = `${AUTHOR.name} <${AUTHOR.email}> ${SEED_EPOCH} +0000`;
  let s = `commit refs/heads/main\nauthor ${who}\ncommitter ${who}\n${data("Initial commit\n")}`;
  for (const [path, text] of Object.entries(files)) s += `M 100644 inline ${path}\n${data(text)}`;
  s += "\n";
  for (const b of EXTRA_BRANCHES[name] ?? [])
    s += `reset refs/heads/${b}\nfrom refs/heads/main\n\n`;
  return s;
}

async function must(
  git: GitRunner,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
  input?: string,
) {
  const r = await git.run(args, cwd, env, input);
  if (r.code !== 0) {
    throw new Error(
      `git ${args[0]} failed while creating demo repositories: ${outputLines(r).join(" / ")}`,
    );
  }
  return r;
}

/**
 * Create the bare repositories under reposDir (kept when they already exist, so a --data-dir
 * survives restarts) and return name → bare path.
 */
export async function ensureDemoRepos(
  git: GitRunner,
  dataDir: string,
): Promise<Map<string, string>> {
  const repos = new Map<string, string>();
  await Promise.all(
    Object.entries(DEMO_REPOS).map(async ([name, files]) => {
      const bare = join(dataDir, "repos", `${name}.git`);
      repos.set(name, bare);
      if (existsSync(join(bare, "HEAD"))) {
        const main = await git.run(["rev-parse", "--verify", "--quiet", "refs/heads/main"], bare);
        if (main.code === 0) return;
        // Left half-made by an interrupted run: start it again.
        await rm(bare, { recursive: true, force: true });
      }
      await mkdir(dirname(bare), { recursive: true });
      await must(
        git,
        ["init", "-q", "--bare", "--template=", "--initial-branch=main", bare],
        dataDir,
      );
      // One fast-import writes the whole initial history: far quicker than a seed checkout.
      await must(git, ["fast-import", "--quiet"], bare, undefined, importStream(name, files));
    }),
  );
  return new Map([...repos].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The known repository a clone request names: `demo/app`, `demo/app.git`, or any URL or path
 * ending in `/demo/app(.git)` or `:demo/app(.git)`. Null when none matches.
 */
export function resolveRepoName(repoUrl: string, known: Iterable<string>): string | null {
  const s = repoUrl.trim().replace(/\/+$/, "");
  for (const name of known) {
    for (const form of [name, `${name}.git`]) {
      if (s === form || s.endsWith(`/${form}`) || s.endsWith(`:${form}`)) return name;
    }
  }
  return null;
}
