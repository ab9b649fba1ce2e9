import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Endpoint, Mount, RememberedService, RouteStore } from "../client/routes.js";
import { cacheDir } from "./paths.js";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./privateFile.js";

/**
 * What the client learned about each service, for later runs: the API's mount (and any route
 * family or event stream answering elsewhere), which of git's two paths answers, and each
 * key's organization (by a hash fingerprint, never the key).
 * One file, `services.json` in the cache folder, owner-only (0600), written whole (a temp
 * file renamed over it), synchronously: a command that ends right after learning still leaves
 * it behind. A broken or missing file only costs a probe.
 */
interface CacheFile {
  version: 1;
  services: Record<string, RememberedService>;
}

export function routeCachePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), "services.json");
}

const MOUNTS = new Set(["interface", "cloud"]);

function read(path: string): CacheFile {
  try {
    const json = JSON.parse(readFileSync(path, "utf8")) as Partial<CacheFile>;
    if (json && json.version === 1 && json.services && typeof json.services === "object") {
      return { version: 1, services: json.services };
    }
  } catch {
    // Missing or unreadable: start empty.
  }
  return { version: 1, services: {} };
}

const mountOf = (v: unknown): Mount | undefined =>
  typeof v === "string" && MOUNTS.has(v) ? (v as Mount) : undefined;
const ENDPOINTS: readonly Endpoint[] = ["git", "clone"];

/**
 * One service's entry, checked field by field (a hand-edited file gives no surprises). An
 * entry of an earlier version (`sessions`, `events`, `integrations`) is read as the mount,
 * the event stream's and the issue tracker's.
 */
function clean(entry: unknown): RememberedService | undefined {
  if (entry === null || typeof entry !== "object") return undefined;
  const e = entry as Record<string, unknown>;
  const out: RememberedService = {};
  const mount = mountOf(e.mount) ?? mountOf(e.sessions);
  if (mount) out.mount = mount;
  const families: Record<string, Mount> = {};
  if (e.families !== null && typeof e.families === "object") {
    for (const [f, v] of Object.entries(e.families as Record<string, unknown>)) {
      const m = mountOf(v);
      if (m) families[f] = m;
    }
  }
  const events = mountOf(e.events);
  if (events && !families.events) families.events = events;
  const v1 = mountOf(e.integrations);
  if (v1 && !families.v1 && v1 !== mount) families.v1 = v1;
  if (Object.keys(families).length > 0) out.families = families;
  if (e.endpoints !== null && typeof e.endpoints === "object") {
    const given = e.endpoints as Record<string, unknown>;
    const endpoints: NonNullable<RememberedService["endpoints"]> = {};
    for (const name of ENDPOINTS) {
      const form = given[name];
      if (form === 0 || form === 1) endpoints[name] = form;
    }
    out.endpoints = endpoints;
  }
  if (e.keys !== null && typeof e.keys === "object") {
    const keys: NonNullable<RememberedService["keys"]> = {};
    for (const [fp, v] of Object.entries(e.keys as Record<string, unknown>)) {
      const org = (v as { organization_id?: unknown } | null)?.organization_id;
      if (org === null || typeof org === "string") keys[fp] = { organization_id: org };
    }
    out.keys = keys;
  }
  return out;
}

function writeWhole(path: string, data: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (process.platform !== "win32" && (statSync(dir).mode & 0o077) !== 0) {
    chmodSync(dir, PRIVATE_DIR_MODE);
  }
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let renamed = false;
  try {
    const fd = openSync(tmp, "wx", PRIVATE_FILE_MODE);
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(tmp);
      } catch {
        // Already gone.
      }
    }
  }
}

/**
 * The cache file as a RouteStore, for the routes of every client the CLI and the UI make.
 * Saving merges: other services and keys are kept (an entry of an earlier version is
 * written in this one's fields when something new is learned).
 */
export function fileRouteStore(env: NodeJS.ProcessEnv = process.env): RouteStore {
  const path = routeCachePath(env);
  return {
    load: (baseUrl) => clean(read(path).services[baseUrl]),
    save: (baseUrl, service) => {
      const file = read(path);
      const before = clean(file.services[baseUrl]) ?? {};
      file.services[baseUrl] = {
        ...before,
        ...service,
        keys: { ...before.keys, ...service.keys },
      };
      writeWhole(path, `${JSON.stringify(file, null, 2)}\n`);
    },
  };
}
