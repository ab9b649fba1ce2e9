// What the published binary and the benchmark's measured processes are bundled with
// (esbuild.config.mjs, test/bench/bundleChildren.mjs): React's production build, the
// development-only imports stubbed, and every other dependency taken as its package entry
// gives it: nothing of a dependency is rewritten or stood in front of.
import { readFileSync } from "node:fs";
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

/** Inputs esbuild reports that are not files (generated modules). */
export const isGenerated = (input) => /^[a-z-]+:/.test(input);
