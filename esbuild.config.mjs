// `npm run build`: tsc emits the module tree under dist/ (tests import from it), then esbuild
// replaces the entry, dist/cli/main.js, with one minified ESM bundle split at the dynamic
// imports (dist/cli/chunks/): the headless commands never load Ink and React, the UI never
// loads the reference service. The bare `agent-sessions` (the UI) is a second bundle,
// dist/cli/uiMain.js with dist/cli/ui-chunks/, which main.js imports: split at the UI's own
// dynamic imports only, so its start loads a few large files instead of ninety small ones. Both steps are skipped when dist/ is current, and
// `npm run build -- --dry` only says what would be done.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(fileURLToPath(import.meta.url));
const OUT_DIR = join(ROOT, "dist", "cli");
const ENTRY_OUT = join(OUT_DIR, "main.js");
const CHUNKS = "chunks";
const UI_CHUNKS = "ui-chunks";
const STAMP = join(ROOT, ".tmp", "bundle-stamp.json");
const args = process.argv.slice(2);
const dry = args.includes("--dry");

const require = createRequire(import.meta.url);
const tsc = spawnSync(
  process.execPath,
  [require.resolve("typescript/bin/tsc"), "-b", "tsconfig.build.json", ...args],
  { cwd: ROOT, stdio: "inherit" },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return null;
  }
};

/** Why the bundle must be rebuilt, or null when every input is older than it. */
function staleness() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, "utf8"));
  } catch {
    return "no bundle yet";
  }
  for (const [file, when] of Object.entries(stamp.outputs)) {
    // tsc rewrites dist/cli/main.js when src/cli/main.ts changes: the entry is then tsc's.
    if (mtime(join(ROOT, file)) !== when) return `${file} changed`;
  }
  const inputs = [
    ...stamp.inputs,
    "esbuild.config.mjs",
    "bundle.config.mjs",
    "package.json",
    "package-lock.json",
  ];
  for (const file of inputs) {
    const t = mtime(join(ROOT, file));
    if (t === null || t > stamp.builtAt) return `${file} changed`;
  }
  return null;
}

const why = staleness();
const shown = relative(ROOT, ENTRY_OUT);
if (why === null) {
  if (dry || args.includes("--verbose")) console.log(`Bundle '${shown}' is up to date`);
  process.exit(0);
}
if (dry) {
  console.log(`A non-dry build would bundle '${shown}' (${why})`);
  process.exit(0);
}

const esbuild = await import("esbuild");
const { bundleOptions } = await import("./bundle.config.mjs");
const builtAt = Date.now();
rmSync(join(OUT_DIR, CHUNKS), { recursive: true, force: true });
rmSync(join(OUT_DIR, UI_CHUNKS), { recursive: true, force: true });
const common = {
  ...bundleOptions(),
  outdir: OUT_DIR,
  splitting: true,
  minify: true,
  sourcemap: "linked",
  // Stack traces name src/ files and lines; the sources themselves are not shipped.
  sourcesContent: false,
  metafile: true,
  legalComments: "linked",
};
/**
 * The bare `agent-sessions` (the UI) loads its own bundle, dist/cli/uiMain.js (built below),
 * not a part of the program's: main.ts's import of it is left as it is written.
 */
const bareUiApart = {
  name: "bare-ui-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/uiMain\.js$/ }, (a) =>
      a.importer === join(ROOT, "src", "cli", "main.ts")
        ? { path: "./uiMain.js", external: true }
        : undefined,
    );
  },
};
const results = await Promise.all([
  // The program: every command, split at the dynamic imports.
  esbuild.build({
    ...common,
    entryPoints: { main: "src/cli/main.ts" },
    chunkNames: `${CHUNKS}/[name]-[hash]`,
    plugins: [bareUiApart],
  }),
  // The bare UI on its own: split at its own dynamic imports only, its start loads a third of
  // the files the program's chunks would make it load (docs/performance.md, "fifth pass").
  esbuild.build({
    ...common,
    entryPoints: { uiMain: "src/cli/uiMain.ts" },
    chunkNames: `${UI_CHUNKS}/[name]-[hash]`,
  }),
]);
const result = {
  metafile: {
    inputs: Object.assign({}, ...results.map((r) => r.metafile.inputs)),
    outputs: Object.assign({}, ...results.map((r) => r.metafile.outputs)),
  },
};

const inputs = Object.keys(result.metafile.inputs);
const outputs = {};
for (const file of Object.keys(result.metafile.outputs)) outputs[file] = mtime(join(ROOT, file));
mkdirSync(dirname(STAMP), { recursive: true });
writeFileSync(STAMP, JSON.stringify({ builtAt, inputs, outputs }));
// What each chunk holds (inspect with https://esbuild.github.io/analyze/).
writeFileSync(join(ROOT, ".tmp", "bundle-meta.json"), JSON.stringify(result.metafile));
if (args.includes("--verbose")) console.log(`Bundled '${shown}' (${why})`);
