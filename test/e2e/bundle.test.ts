import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import module from "node:module";
import { createServer, type Server } from "node:net";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripAnsi } from "../../src/text/sanitize.js";
import { CLI, runCli, tempConfigHome } from "../helpers/cli.js";
import { hang, startScriptedServer } from "../helpers/scriptedHttpServer.js";

/** Node 22.1+ keeps compiled code between runs (main.ts turns it on); Node 20 has none. */
const hasCompileCache =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";

/**
 * The published binary (`npm run build` → dist/cli/main.js) is a minified bundle; with
 * AGENT_SESSIONS_DEBUG its source map makes a stack trace name our source files and lines.
 */
describe("the bundled binary", () => {
  let busy: Server;
  let port = 0;
  const cfg = tempConfigHome();

  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => busy.close(() => r()));
    cfg.cleanup();
  });

  it("is one minified ESM entry that loads the rest on demand", () => {
    const entry = readFileSync(CLI, "utf8");
    expect(entry.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(entry).toMatch(/import\("\.\/chunks\/program-[\w-]+\.js"\)/);
    expect(entry.split("\n").length).toBeLessThan(10);
    // Every file of the bundle is the entry or one of its chunks: no second copy of the app.
    const meta = JSON.parse(readFileSync(join(ROOT, ".tmp", "bundle-meta.json"), "utf8")) as {
      outputs: Record<string, unknown>;
    };
    const outputs = Object.keys(meta.outputs);
    expect(outputs).toContain("dist/cli/main.js");
    // The bare UI's own bundle, which the entry imports as it is (not one of its chunks).
    expect(outputs).toContain("dist/cli/uiMain.js");
    expect(entry).toContain('import("./uiMain.js")');
    expect(
      outputs.filter((f) => !/^dist\/cli\/(main\.js|chunks\/|uiMain\.js|ui-chunks\/)/.test(f)),
    ).toEqual([]);
  });

  it("the bare UI's bundle is split at the UI's own dynamic imports only: a few dozen files", () => {
    const meta = JSON.parse(readFileSync(join(ROOT, ".tmp", "bundle-meta.json"), "utf8")) as {
      outputs: Record<string, { entryPoint?: string }>;
    };
    const ui = Object.entries(meta.outputs).filter(
      ([f]) => f.endsWith(".js") && /^dist\/cli\/(uiMain\.js|ui-chunks\/)/.test(f),
    );
    const program = Object.keys(meta.outputs).filter((f) => /^dist\/cli\/chunks\/.*\.js$/.test(f));
    // Split with every command's entry, the UI's start loaded some ninety files; on its own,
    // under fifty in all (docs/performance.md, "fifth pass").
    expect(ui.length).toBeLessThan(50);
    expect(ui.length * 2).toBeLessThan(program.length);
    // Neither the command line nor the reference service is in it.
    const sources = ui.flatMap(([f]) => {
      const map = JSON.parse(readFileSync(join(ROOT, `${f}.map`), "utf8")) as { sources: string[] };
      return map.sources.map((s) => relative(ROOT, join(ROOT, dirname(f), s)));
    });
    expect(sources).toContain("src/cli/commands/ui.ts");
    expect(
      sources.filter((s) =>
        /^(src\/cli\/(program|definitions\/)|src\/server\/|node_modules\/commander\/)/.test(s),
      ),
    ).toEqual([]);
  });

  it("with AGENT_SESSIONS_DEBUG, an error's stack trace names src/ files, and the key stays out", async () => {
    const key = "as_live_0123456789abcdefghijklmnopqrstuv";
    const r = await runCli(["serve", "--host", "127.0.0.1", "--port", String(port)], {
      env: { AGENT_SESSIONS_DEBUG: "1", AGENT_SESSIONS_API_KEY: key, XDG_CONFIG_HOME: cfg.dir },
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`port ${port} is already in use`);
    expect(r.stderr).toMatch(/src\/cli\/commands\/serve\.ts:\d+:\d+/);
    expect(r.stderr).not.toMatch(/chunks\/[\w-]+\.js/);
    expect(r.stderr).not.toContain(key);
  });

  it("without it, the error is one or two lines and no stack", async () => {
    const r = await runCli(["serve", "--host", "127.0.0.1", "--port", String(port)], {
      env: { XDG_CONFIG_HOME: cfg.dir },
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`port ${port} is already in use`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.skipIf(!hasCompileCache)(
    "keeps Node's compile cache in the user's cache folder, and nothing with NODE_DISABLE_COMPILE_CACHE=1",
    async () => {
      const on = join(cfg.dir, "cache-on");
      const off = join(cfg.dir, "cache-off");
      const base = { HOME: cfg.dir, XDG_CONFIG_HOME: cfg.dir };
      expect((await runCli(["--version"], { env: { ...base, XDG_CACHE_HOME: on } })).code).toBe(0);
      expect(readdirSync(join(on, "agent-sessions", "compile-cache")).length).toBeGreaterThan(0);
      const r = await runCli(["--version"], {
        env: { ...base, XDG_CACHE_HOME: off, NODE_DISABLE_COMPILE_CACHE: "1" },
      });
      expect(r.code).toBe(0);
      expect(existsSync(join(off, "agent-sessions"))).toBe(false);
    },
  );

  it("draws its first frame (header, list skeleton) before the service answers anything", async () => {
    const ui = await startBareUi({ HOME: cfg.dir, XDG_CONFIG_HOME: cfg.dir });
    try {
      const screen = await ui.waitFor(["verifying key…", "loading sessions…"]);
      expect(screen).toContain("verifying key…");
      expect(screen).toContain("loading sessions…");
      // Nothing was answered: every request the UI sent is still open.
      expect(ui.server.seen.every((r) => !r.closed)).toBe(true);
    } finally {
      await ui.stop();
    }
  });

  it("quits with q at once while the service answers nothing, exit 0", async () => {
    const ui = await startBareUi({ HOME: cfg.dir, XDG_CONFIG_HOME: cfg.dir });
    try {
      expect(await ui.waitFor(["loading sessions…"])).toContain("loading sessions…");
      ui.child.stdin.write("q");
      const code = await Promise.race([
        ui.exited,
        new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 10_000)),
      ]);
      expect(code).toBe(0);
    } finally {
      await ui.stop();
    }
  });
});

/**
 * The bare binary (the UI) in a pseudo-terminal (script from util-linux, as a user's terminal
 * would be) against a service that answers nothing.
 */
async function startBareUi(env: Record<string, string>, stderrTo?: string) {
  const server = await startScriptedServer();
  server.fallback(hang);
  // stderr to a file when asked: the UI draws on stdout and reads stdin, both the terminal.
  const redirect = stderrTo === undefined ? "" : ` 2>'${stderrTo}'`;
  const child = spawn(
    "script",
    ["-qfec", `stty cols 120 rows 30; exec ${process.execPath} ${CLI}${redirect}`, "/dev/null"],
    {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
        AGENT_SESSIONS_BASE_URL: server.url,
        AGENT_SESSIONS_API_KEY: "as_live_0123456789abcdefghijklmnopqrstuv",
        ...env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    screen += d;
  });
  return {
    server,
    child,
    exited,
    /** The screen so far, once it shows every text (or after 15 s). */
    async waitFor(texts: string[]): Promise<string> {
      for (let i = 0; i < 300 && !texts.every((t) => stripAnsi(screen).includes(t)); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      return stripAnsi(screen);
    },
    async stop() {
      child.kill("SIGKILL");
      await exited;
      await server.close();
    },
  };
}

/** What one run of the binary loaded: the bundle files' bytes and the sources in them. */
interface Loaded {
  bytes: number;
  /** Source files behind the loaded bundle files (from their source maps), relative to the root. */
  sources: string[];
}

const DIST = dirname(CLI);
const ROOT = join(DIST, "..", "..");

/**
 * Runs the binary with NODE_DEBUG=esm, which makes Node name every module it loads on stderr,
 * and reads the source map of each bundle file loaded to say which sources it holds.
 */
async function loadedBy(args: string[], env: Record<string, string>): Promise<Loaded> {
  const r = await runCli(args, { env: { ...env, NODE_DEBUG: "esm" } });
  return loadedFrom(r.stderr);
}

/** What the modules named in NODE_DEBUG=esm's output hold. */
function loadedFrom(log: string): Loaded {
  const urls = new Set(log.match(/file:\/\/[^\s'",]+\.js/g) ?? []);
  const files = [...urls].map((u) => fileURLToPath(u)).filter((f) => f.startsWith(DIST));
  const sources = new Set<string>();
  let bytes = 0;
  for (const file of files) {
    bytes += statSync(file).size;
    const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
    for (const s of map.sources) sources.add(relative(ROOT, join(dirname(file), s)));
  }
  return { bytes, sources: [...sources].sort() };
}

/** The heavy parts a command only needs once it talks to a service or draws a UI. */
const NETWORK = /^(node_modules\/(undici|zod)\/|src\/client\/apiClient\.ts$|src\/server\/)/;
const HTTP = /^(node_modules\/undici\/|src\/client\/apiClient\.ts$)/;
const UI = /^(node_modules\/(ink|react|react-reconciler|yoga-layout)\/|src\/ui\/components\/)/;

describe("what the bundled binary loads", () => {
  const cfg = tempConfigHome();
  const env = { HOME: cfg.dir, XDG_CONFIG_HOME: cfg.dir, XDG_STATE_HOME: cfg.dir };
  afterAll(() => cfg.cleanup());

  it.each([
    [["--version"]],
    [["--help"]],
    [["help", "git", "push"]],
    [["completion", "bash"]],
    [["whoamii"]],
  ])(
    "%j loads the commands' definitions, not the HTTP client, zod, the service or the UI",
    async (args) => {
      const loaded = await loadedBy(args, env);
      // The observation works: the program was seen.
      expect(loaded.sources).toContain("src/cli/program.ts");
      expect(loaded.sources.filter((s) => NETWORK.test(s))).toEqual([]);
      expect(loaded.sources.filter((s) => UI.test(s))).toEqual([]);
      expect(loaded.sources.filter((s) => s.startsWith("src/cli/commands/"))).toEqual(
        args[0] === "completion" ? ["src/cli/commands/completion.ts"] : [],
      );
      expect(loaded.sources).toContain("src/cli/definitions/sessions.ts");
      // Commander and the definitions: about 80 kB; with the client's code it was 1 MB.
      expect(loaded.bytes).toBeLessThan(150_000);
    },
  );

  it.each([
    [["whoami"], "whoami"],
    [["sessions", "--all"], "sessions"],
    [["watch", "ses_abc"], "watch"],
    [["git", "push", "ses_abc"], "git"],
    [["integrations"], "integrations"],
    [["profiles"], "profiles"],
    [["journal", "path"], "journal"],
    [["logout"], "logout"],
  ])("%j loads its implementation, never Ink, React or the service", async (args, name) => {
    const loaded = await loadedBy(args, env);
    expect(loaded.sources).toContain(`src/cli/commands/${name}.ts`);
    expect(loaded.sources.filter((s) => UI.test(s))).toEqual([]);
    expect(loaded.sources.filter((s) => s.startsWith("src/server/"))).toEqual([]);
  });

  it("the bare command (the UI) loads Ink, React and the UI, never the command line or the service", async () => {
    const log = join(cfg.dir, "bare-ui.log");
    const ui = await startBareUi(
      { HOME: cfg.dir, XDG_CONFIG_HOME: cfg.dir, XDG_STATE_HOME: cfg.dir, NODE_DEBUG: "esm" },
      log,
    );
    try {
      // The signed-in screen (its header verifying the key), drawn once the client has loaded.
      const screen = await ui.waitFor(["loading sessions…", "verifying key…"]);
      expect(screen).toContain("verifying key…");
    } finally {
      await ui.stop();
    }
    const loaded = loadedFrom(readFileSync(log, "utf8"));
    expect(loaded.sources).toContain("src/cli/commands/ui.ts");
    expect(loaded.sources.some((s) => UI.test(s))).toBe(true);
    expect(loaded.sources.some((s) => HTTP.test(s))).toBe(true);
    expect(loaded.sources.filter((s) => s.startsWith("src/server/"))).toEqual([]);
    expect(loaded.sources.filter((s) => s.startsWith("node_modules/commander/"))).toEqual([]);
    expect(loaded.sources).not.toContain("src/cli/program.ts");
  });

  it("the UI's first frame needs no HTTP client: it loads after the frame is drawn", () => {
    // What a chunk imports before it runs (import … from "./x.js"), not what it loads later
    // (import("./x.js")).
    const staticClosure = (file: string): string[] => {
      const seen = new Set([file]);
      for (const f of seen) {
        const code = readFileSync(f, "utf8");
        for (const m of code.matchAll(/(?:from|import)\s*"(\.\.?\/[\w./-]+\.js)"/g)) {
          seen.add(join(dirname(f), m[1] as string));
        }
      }
      return [...seen];
    };
    /** The chunk one of `files` loads lazily (import("./name-hash.js")). */
    const lazyImport = (files: string[], name: string): string => {
      const pattern = new RegExp(`import\\("(\\.\\.?/[\\w./-]*${name}-[\\w-]+\\.js)"\\)`);
      for (const file of files) {
        const m = pattern.exec(readFileSync(file, "utf8"));
        if (m) return join(dirname(file), m[1] as string);
      }
      throw new Error(`nothing loads ${name} lazily`);
    };
    const start = staticClosure(join(DIST, "uiMain.js"));
    const firstFrame = [...start, ...staticClosure(lazyImport(start, "runTui")), CLI];
    const sources = new Set<string>();
    for (const file of firstFrame) {
      const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
      for (const s of map.sources) sources.add(relative(ROOT, join(dirname(file), s)));
    }
    // The observation works: Ink and the screens are there.
    expect([...sources].some((s) => UI.test(s))).toBe(true);
    expect([...sources].filter((s) => HTTP.test(s))).toEqual([]);
    // The client comes in through a lazy import of the services' builder.
    expect(() => lazyImport(start, "buildServices")).not.toThrow();
  });

  it.each([[["profiles"]], [["journal", "path"]], [["logout"]]])(
    "%j only reads local files: it does not load the HTTP client",
    async (args) => {
      const loaded = await loadedBy(args, env);
      expect(loaded.sources).toContain(`src/cli/commands/${args[0]}.ts`);
      expect(loaded.sources.filter((s) => HTTP.test(s))).toEqual([]);
    },
  );
});
