// What the published binary and the benchmark's measured processes are bundled with
// (esbuild.config.mjs, test/bench/bundleChildren.mjs): React's production build, and every
// dependency taken as its package entry gives it: nothing of a dependency is rewritten,
// replaced or stood in front of (docs/architecture.md, "Public APIs only").
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
    external: [
      // The keychain is a native addon, loaded by path in a child process (credentials/keychain).
      "@napi-rs/keyring",
      // An optional peer of Ink that we do not ship: Ink imports it only from the module it
      // loads when DEV=true (its devtools bridge). Left as a plain import, it stays in that
      // module's own chunk (the builds split at dynamic imports) and is looked for only then.
      "react-devtools-core",
    ],
    // CommonJS dependencies (React) call require() for Node's built-ins.
    banner: {
      js: 'import{createRequire as __asCreateRequire}from"node:module";const require=__asCreateRequire(import.meta.url);',
    },
  };
}
