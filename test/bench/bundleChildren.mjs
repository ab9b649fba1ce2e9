// `npm run bench`, after tsc: each measured client process of the benchmark (the Ink app of
// B4–B7, B10, B12; the stores and streams of B7/B11; Ink alone for B8-ink and B10-ink) is
// bundled the way the published binary is (bundle.config.mjs: React's production build,
// every dependency through its package entry; split at the dynamic imports), over tsc's
// output of the same file, so the rows measure what users run.
// Identifiers are kept so that BENCH_CPU_PROF profiles stay readable. The reference
// service's process (serverChild) is left as tsc emits it: it is not what is measured.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { bundleOptions } from "../../bundle.config.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const OUT = join(ROOT, ".tmp", "bench-build", "test", "bench");
const CHILDREN = [
  "liveUiChild.tsx",
  "memoryChild.ts",
  "idleChild.ts",
  "bytesChild.tsx",
  "fleetChild.tsx",
  // Issue 35's rows: the prompt box and its answer under B4's load (B15), a 100,000-line pane (B16).
  "promptChild.tsx",
  "largePaneChild.tsx",
  // Issue 32's row: the changes view on a 10,000-line diff (B17).
  "diffViewChild.tsx",
  // B14: a pane's history on open.
  "historyOpenChild.tsx",
  // The reference rows' processes: Ink and React alone, drawing the app's recorded frames.
  "inkStartChild.ts",
  "inkReplayChild.tsx",
  "inkStepsChild.tsx",
];

await esbuild.build({
  ...bundleOptions(),
  entryPoints: CHILDREN.map((f) => join(ROOT, "test", "bench", f)),
  outdir: OUT,
  // Split at the dynamic imports as the binary is: what the app loads lazily stays lazy.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  minifyWhitespace: true,
  minifySyntax: true,
});
