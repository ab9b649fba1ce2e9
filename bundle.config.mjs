// What the published binary and the benchmark's measured processes are bundled with
// (esbuild.config.mjs, test/bench/bundleChildren.mjs): React's production build, the
// development-only imports stubbed, and the fast paths put in front of Ink's dependencies.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(fileURLToPath(import.meta.url));

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

/** The esbuild options every bundle of the app shares (entry points and output are the caller's). */
export function bundleOptions() {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  return {
    absWorkingDir: ROOT,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
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
      // Ink's Output tokenizes every text it places and turns every line of every frame into a
      // string: the same tokens and strings, without the grapheme segmenter for plain narrow
      // text and without the style diff where neighbours share a style
      // (src/text/ansiTokenize.ts).
      frontImports("@alcalzone/ansi-tokenize", 1, (real) => [
        `import * as lib from ${JSON.stringify(real)};`,
        `import * as fast from ${src("text", "ansiTokenize.ts")};`,
        `export * from ${JSON.stringify(real)};`,
        "export const tokenize = fast.withFastTokenize(lib);",
        "export const styledCharsFromTokens = fast.withSharedStyles(lib);",
        "export const styledCharsToString = fast.withSameStyleRuns(lib);",
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
  };
}

const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/**
 * The options of a script bundle for src/cli/scriptCache.ts: the app's options, but no import
 * or export statements in the output, so V8 can compile it as a classic script. Node's
 * built-ins come through the `require` the loader passes in (imports of them become
 * CommonJS modules of one line), `import.meta.url` is the loader's parameter, and there is
 * no banner (the loader provides `require`).
 */
export function scriptOptions() {
  const base = bundleOptions();
  const { banner: _banner, ...rest } = base;
  return {
    ...rest,
    define: { ...base.define, "import.meta.url": "__agentSessionsImportMetaUrl" },
    plugins: [
      {
        name: "builtins-through-require",
        setup(build) {
          build.onResolve({ filter: /.*/ }, (a) => {
            if (!BUILTINS.has(a.path)) return undefined;
            // The one-line module's own require is left to the loader's.
            if (a.namespace === "builtin") return { path: a.path, external: true };
            return { path: a.path.replace(/^node:/, ""), namespace: "builtin" };
          });
          build.onLoad({ filter: /.*/, namespace: "builtin" }, (a) => ({
            contents: `module.exports = require(${JSON.stringify(`node:${a.path}`)});`,
            loader: "js",
          }));
        },
      },
      ...base.plugins,
    ],
  };
}

/** Inputs esbuild reports that are not files (generated fronts, stubs). */
export const isGenerated = (input) => /^[a-z-]+:/.test(input);
