import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Imports point one way (docs/architecture.md): no module imports one that imports it back,
 * directly or round a longer path, and no folder of a concern imports a folder that imports
 * it. A circle makes a module's load order depend on who loads first, and a concern that
 * cannot be read (or moved) without its neighbour.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");

/** Circles left to take apart (the request budget and the transport): this test stops new ones. */
const KNOWN: readonly string[] = ["src/client/requestBudget.ts src/client/transport.ts"];
const KNOWN_FOLDERS: readonly string[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.tsx?$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** Every module a file imports or re-exports from (types included), as a path under src. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
  const out: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const base = resolve(dirname(file), fileName).replace(/\.js$/, "");
    const found = [".ts", ".tsx", "/index.ts"].map((x) => base + x).find((p) => existsSync(p));
    if (found) out.push(found);
  }
  return out;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (f: string) => relative(ROOT, f);

/** Groups of modules that reach each other (Tarjan's strongly connected components). */
function circles(g: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group);
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("imports", () => {
  it("form no circle between modules", () => {
    const found = circles(graph)
      .map((c) => c.map(rel).sort().join(" "))
      .filter((c) => !KNOWN.includes(c));
    expect(found).toEqual([]);
  });

  it("form no circle between the folders of one concern", () => {
    const folderGraph = new Map<string, string[]>();
    for (const [f, deps] of graph) {
      const from = dirname(f);
      for (const d of deps) {
        const to = dirname(d);
        if (to === from) continue;
        folderGraph.set(from, [...(folderGraph.get(from) ?? []), to]);
      }
    }
    const pairs: string[] = [];
    for (const [from, tos] of folderGraph) {
      for (const to of new Set(tos)) {
        // The store's concerns, and the UI's model and input.
        const watched = /^src\/(store\/|ui\/(model|input))/;
        if (!watched.test(rel(from)) || !watched.test(rel(to))) continue;
        if (folderGraph.get(to)?.includes(from) && from < to)
          pairs.push(`${rel(from)} ↔ ${rel(to)}`);
      }
    }
    expect(pairs.filter((p) => !KNOWN_FOLDERS.includes(p))).toEqual([]);
  });

  it("go down inside the UI: its model imports neither its input nor its components", () => {
    const up = [...graph].flatMap(([f, deps]) =>
      rel(f).startsWith("src/ui/model/")
        ? deps
            .filter((d) => /^src\/ui\/(input|components|screens)\//.test(rel(d)))
            .map((d) => `${rel(f)} → ${rel(d)}`)
        : [],
    );
    expect(up).toEqual([]);
  });
});
