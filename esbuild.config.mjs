// `npm run build`: tsc emits the module tree under dist/ (tests import from it), then esbuild
// replaces the entry, dist/cli/main.js, with one minified ESM bundle split at the dynamic
// imports (dist/cli/chunks/): the headless commands never load Ink and React, the UI never
// loads the reference service. Both steps are skipped when dist/ is current, and
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
  const inputs = [...stamp.inputs, "esbuild.config.mjs", "package.json", "package-lock.json"];
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

/** A module of src/, as a JS string literal for generated imports. */
const src = (...parts) => JSON.stringify(join(ROOT, "src", ...parts));

/**
 * An esbuild plugin that puts a module of ours in front of every import of `specifier`
 * from the dependencies: `lines(realPath)` is the generated module, which imports the real
 * one by its path. The build fails when fewer than `minimum` imports were fronted, so a
 * dependency update cannot drop a fast path unnoticed.
 */
function frontImports(specifier, minimum, lines) {
  const namespace = `front:${specifier}`;
  const exact = new RegExp(`^${specifier.replace(/[/.@-]/g, "\\$&")}$`);
  return {
    name: `front-${specifier}`,
    setup(build) {
      let fronted = 0;
      build.onResolve({ filter: exact }, async (a) => {
        // The real module, asked for by this plugin itself, resolves as usual.
        if (a.namespace === namespace) return undefined;
        const real = await build.resolve(specifier, {
          kind: a.kind,
          resolveDir: a.resolveDir,
          namespace,
        });
        if (real.errors.length > 0) return { errors: real.errors };
        fronted++;
        return { path: real.path, namespace };
      });
      build.onLoad({ filter: /.*/, namespace }, (a) => ({
        contents: lines(a.path).join("\n"),
        resolveDir: ROOT,
        loader: "js",
      }));
      build.onEnd((r) => {
        if (r.errors.length === 0 && fronted < minimum) {
          throw new Error(`${specifier}: expected ${minimum} imports to front, found ${fronted}`);
        }
      });
    },
  };
}

const esbuild = await import("esbuild");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const builtAt = Date.now();
rmSync(join(OUT_DIR, CHUNKS), { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: { main: "src/cli/main.ts" },
  outdir: OUT_DIR,
  chunkNames: `${CHUNKS}/[name]-[hash]`,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  minify: true,
  sourcemap: "linked",
  // Stack traces name src/ files and lines; the sources themselves are not shipped.
  sourcesContent: false,
  metafile: true,
  legalComments: "linked",
  logLevel: "warning",
  define: {
    // React's production build, chosen at build time so the development build is left out.
    "process.env.NODE_ENV": '"production"',
    AGENT_SESSIONS_BUNDLED_VERSION: JSON.stringify(pkg.version),
  },
  // The keychain is a native addon, loaded by path in a child process (credentials/keychain).
  external: ["@napi-rs/keyring"],
  // CommonJS dependencies (React) call require() for Node's built-ins.
  banner: {
    js: 'import{createRequire as __asCreateRequire}from"node:module";const require=__asCreateRequire(import.meta.url);',
  },
  plugins: [
    {
      // yoga-layout (Ink's layout engine) carries its WebAssembly as base64 and, where fetch
      // exists, decodes it by fetching a data: URL; on Node that first loads Node's own copy
      // of undici, about 20 ms of every start. Without fetch it decodes the same bytes in place.
      name: "yoga-without-fetch",
      setup(build) {
        build.onLoad({ filter: /yoga-wasm-base64-esm\.js$/ }, (a) => {
          const src = readFileSync(a.path, "utf8");
          const check = '"function"!=typeof fetch';
          const found = src.split(check).length - 1;
          if (found !== 2) {
            throw new Error(
              `yoga-layout changed: expected 2 fetch checks in ${a.path}, found ${found}`,
            );
          }
          return { contents: src.replaceAll(check, "true"), loader: "js" };
        });
      },
    },
    // Ink, wrap-ansi, cli-truncate and widest-line measure text with string-width, whose
    // loading and first use cost about 50 ms of every start: the same widths, the real
    // module loaded only for text the fast path does not cover (src/text/narrowWidth.ts).
    frontImports("string-width", 2, (real) => {
      // Its package.json is next to its index.js; the fast path has a table per major.
      const { version } = JSON.parse(readFileSync(join(dirname(real), "package.json"), "utf8"));
      const major = Number(version.split(".")[0]);
      if (major !== 7 && major !== 8) {
        throw new Error(`string-width ${version} at ${real}: narrowWidth.ts has no table for it`);
      }
      return [
        `import { withNarrowFastPath } from ${src("text", "narrowWidth.ts")};`,
        `export default withNarrowFastPath(${major}, () => require(${JSON.stringify(real)}).default);`,
      ];
    }),
    // Ink turns every line of every frame into a string with styledCharsToString, which
    // diffs the styles of each cell against the one before: the same string, without the
    // diff where neighbours share a style (src/text/styledRuns.ts).
    frontImports("@alcalzone/ansi-tokenize", 1, (real) => [
      `import * as lib from ${JSON.stringify(real)};`,
      `import { withSameStyleRuns } from ${src("text", "styledRuns.ts")};`,
      `export * from ${JSON.stringify(real)};`,
      "export const styledCharsToString = withSameStyleRuns(lib);",
    ]),
    {
      // Ink imports react-devtools-core only when DEV=true; the published binary has no
      // devtools to talk to.
      name: "stub-devtools",
      setup(build) {
        build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
          path: "react-devtools-core",
          namespace: "stub",
        }));
        build.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
          contents: "export default { initialize() {}, connectToDevTools() {} };",
          loader: "js",
        }));
      },
    },
  ],
});

const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith("stub:"));
const outputs = {};
for (const file of Object.keys(result.metafile.outputs)) outputs[file] = mtime(join(ROOT, file));
mkdirSync(dirname(STAMP), { recursive: true });
writeFileSync(STAMP, JSON.stringify({ builtAt, inputs, outputs }));
// What each chunk holds (inspect with https://esbuild.github.io/analyze/).
writeFileSync(join(ROOT, ".tmp", "bundle-meta.json"), JSON.stringify(result.metafile));
if (args.includes("--verbose")) console.log(`Bundled '${shown}' (${why})`);
