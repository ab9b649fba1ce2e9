// What the published binary and the benchmark's measured processes are bundled with
// (esbuild.config.mjs, test/bench/bundleChildren.mjs): React's production build, the
// development-only imports stubbed, and every other dependency taken as its package entry
// gives it: nothing of a dependency is rewritten or stood in front of.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(fileURLToPath(import.meta.url));

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

/** Inputs esbuild reports that are not files (generated modules). */
export const isGenerated = (input) => /^[a-z-]+:/.test(input);
