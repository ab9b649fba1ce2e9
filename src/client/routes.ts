/**
 * Where a service mounts its API, and what its key says about itself: decided here, once, for
 * ApiClient and eventStream alike. One ServiceRoutes belongs to one client (its transport) and
 * its base URL; it is made with the client and passed to whatever shares that client.
 *
 * The interface and the real service's docs name routes under `/api/…` (sessions, their
 * history, approvals and git, the code hosting app's `/api/github-app/…`, the issue tracker's
 * and the chat tool's `/api/v1/…`); the real service serves every one of them under
 * `/api/cloud/…`, where the `/api/…` form belongs to its web dashboard and answers a bearer
 * key with 401. So the API's base is one thing to learn per base URL (the mount), and every
 * route family (the first path segment under the base: `sessions`, `github-app`, `v1`, and any
 * added later) goes under it. A family that answers under the other base (a service serving
 * its issue tracker only under `/api/cloud/v1`) is remembered as an exception of its own.
 *
 * A route is tried in its family's mount; when that answers 404 or 405 (or 401 while the key
 * is known good) the other form is tried, and what worked is remembered: for this client and,
 * when a store is given (the CLI gives one: a cache file), for later runs, which then send no
 * probing request. The event stream is a family of its own: the interface names it under
 * `/api/cloud/sessions/{id}/events` whatever the other routes' base.
 *
 * An endpoint with two documented paths (git: the interface's `…/git/operation` and the
 * documented `…/git`) is learned the same way: which of the two answered, per base URL.
 *
 * The key's organization (from GET /api/cloud/auth/verify) is remembered alongside, per key
 * fingerprint (a hash, never the key), so the X-Organization-Id default costs one verify per
 * key and service, not one per command.
 */
import { createHash } from "node:crypto";
import { PATHS } from "../protocol/index.js";
import { INTEGRATION_PATHS } from "../protocol/integrations.js";

/** "interface": the API under `/api/…`; "cloud": under `/api/cloud/…`. */
export type Mount = "interface" | "cloud";

/**
 * A route family: the first path segment under the API's base (`sessions`, `github-app`,
 * `v1`, …), or `events` for a session's event stream.
 */
export type RouteFamily = string;

/** The event stream's family. */
const EVENTS: RouteFamily = "events";

/** An endpoint with two documented paths: which one a service serves is learned. */
export type Endpoint = "git" | "clone";

/** What a store keeps for one base URL. */
export interface RememberedService {
  /** The API's base this service answered under. */
  mount?: Mount;
  /** Families that answered under another base than `mount` (and the event stream's). */
  families?: Record<RouteFamily, Mount>;
  /** Of an endpoint's two paths, the one that answered (0: the interface's, 1: the documented). */
  endpoints?: Partial<Record<Endpoint, 0 | 1>>;
  /** Key fingerprint → the key's organization (null: a personal key). */
  keys?: Record<string, { organization_id: string | null }>;
}

/** Where learned routes outlive the process (the CLI's cache file); loads are synchronous. */
export interface RouteStore {
  load(baseUrl: string): RememberedService | undefined;
  save(baseUrl: string, service: RememberedService): void;
}

/** Paths the interface names exactly, served as they are under either mount. */
const FIXED = new Set<string>([PATHS.verify, PATHS.me]);
const API = /^\/api(?:\/cloud)?(?=\/)/;
const EVENTS_ROUTE = /^\/sessions\/[^/]+\/events$/;
const CLOUD_SUFFIX = /\/api\/cloud$/;

/** The path below the API's base (`/sessions/x`), or null for a path no mount moves. */
function below(path: string): string | null {
  if (FIXED.has(path)) return null;
  const m = API.exec(path);
  if (!m) return null;
  return path.slice(m[0].length);
}

/** A path whose mount is learned: any route under the API's base but verify and me. */
export function isMountedRoute(path: string): boolean {
  return below(path) !== null;
}

/** The path under the given mount (a path no mount moves stays as it is). */
function inMount(path: string, mount: Mount): string {
  const rest = below(path);
  if (rest === null) return path;
  return `${mount === "cloud" ? "/api/cloud" : "/api"}${rest}`;
}

/** The family of a mounted path: its first segment under the base, or the event stream. */
function familyOf(path: string): RouteFamily {
  const rest = below(path) ?? path;
  if (EVENTS_ROUTE.test(rest)) return EVENTS;
  return rest.split("/")[1] ?? "";
}

const other = (m: Mount): Mount => (m === "cloud" ? "interface" : "cloud");

/** A base URL whose path already ends in `/api/cloud` (the real service's CLI uses one). */
function baseEndsInCloud(baseUrl: string): boolean {
  return CLOUD_SUFFIX.test(new URL(baseUrl).pathname.replace(/\/+$/, ""));
}

/** A key's fingerprint for the cache: a hash prefix that cannot give the key back. */
function keyFingerprint(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex").slice(0, 24);
}

/** Where the key's organization came from, for messages. */
export type OrganizationSource = "key" | "--org" | "AGENT_SESSIONS_ORG" | "the profile";

export class ServiceRoutes {
  readonly baseUrl: string;
  readonly #fingerprint: string;
  readonly #store: RouteStore | null;
  #remembered: RememberedService;
  /** Families whose route answered in their mount during this run: no more probing. */
  readonly #confirmed = new Set<RouteFamily>();
  /** A family answered under the remembered base in this run: the base stands. */
  #baseConfirmed = false;
  /** Endpoints whose path answered during this run: the other is not tried again. */
  readonly #settled = new Set<Endpoint>();
  /** verify or me answered 200 in this process. */
  keyVerified = false;
  /** The key's organization: undefined until known (null for a personal key). */
  #keyOrg: string | null | undefined;

  /**
   * The routes of one client of `baseUrl` with `apiKey`; `store` keeps what is learned for
   * later runs (null: this client's lifetime only).
   */
  constructor(baseUrl: string, apiKey: string, store: RouteStore | null = null) {
    this.baseUrl = baseUrl;
    this.#fingerprint = keyFingerprint(apiKey);
    this.#store = store;
    let remembered: RememberedService | undefined;
    try {
      remembered = store?.load(baseUrl);
    } catch {
      remembered = undefined;
    }
    this.#remembered = remembered ?? {};
    const key = this.#remembered.keys?.[this.#fingerprint];
    if (key !== undefined) this.#keyOrg = key.organization_id;
  }

  /** The API's base, as learned (undefined: not yet). */
  get mount(): Mount | undefined {
    return this.#remembered.mount;
  }

  /** The mount a family's routes go to first. */
  mountOf(family: RouteFamily): Mount {
    const own = this.#remembered.families?.[family];
    if (own) return own;
    // The interface names the stream under /api/cloud/… whatever the other routes' base.
    if (family === EVENTS) return "cloud";
    if (this.#remembered.mount) return this.#remembered.mount;
    return baseEndsInCloud(this.baseUrl) ? "cloud" : "interface";
  }

  /** Whether the family's mount came from an answer or the store rather than a default. */
  isLearned(family: RouteFamily): boolean {
    if (this.#remembered.families?.[family]) return true;
    return family !== EVENTS && this.#remembered.mount !== undefined;
  }

  /**
   * The forms of a path to try, in order: its family's mount's, then (unless that family
   * already answered in this run) the other's. A path no mount moves is itself alone.
   */
  candidates(path: string): string[] {
    if (!isMountedRoute(path)) return [path];
    const family = familyOf(path);
    const first = this.mountOf(family);
    const forms = [inMount(path, first)];
    if (!this.#confirmed.has(family)) forms.push(inMount(path, other(first)));
    return forms;
  }

  /**
   * A mounted route answered (not 404/405/401) at this path: its mount is its family's, and
   * the API's base unless another family already answered under the base in this run (then
   * this family is an exception of its own).
   */
  worked(path: string): void {
    if (!isMountedRoute(path)) return;
    const family = familyOf(path);
    const mount: Mount = path.startsWith("/api/cloud/") ? "cloud" : "interface";
    this.#confirmed.add(family);
    if (family !== EVENTS && this.#remembered.mount === mount) this.#baseConfirmed = true;
    if (this.mountOf(family) === mount && this.isLearned(family)) return;
    const r = this.#remembered;
    const families = { ...r.families };
    let base = r.mount;
    if (family !== EVENTS && (base === mount || !this.#baseConfirmed)) {
      base = mount;
      this.#baseConfirmed = true;
      delete families[family];
    } else families[family] = mount;
    this.#remembered = { ...r, ...(base ? { mount: base } : {}), families };
    this.#save();
  }

  /** Which of an endpoint's two paths to try first (0: the interface's). */
  formOf(endpoint: Endpoint): 0 | 1 | undefined {
    return this.#remembered.endpoints?.[endpoint];
  }

  /** Whether the endpoint's path answered in this run (the other is then never tried). */
  isSettled(endpoint: Endpoint): boolean {
    return this.#settled.has(endpoint);
  }

  /** The endpoint's path of this index answered (a route that exists). */
  formWorked(endpoint: Endpoint, form: 0 | 1): void {
    this.#settled.add(endpoint);
    if (this.formOf(endpoint) === form) return;
    this.#remembered = {
      ...this.#remembered,
      endpoints: { ...this.#remembered.endpoints, [endpoint]: form },
    };
    this.#save();
  }

  /** The key's organization, once known (undefined: not yet asked). */
  get keyOrganization(): string | null | undefined {
    return this.#keyOrg;
  }

  /** verify answered 200 with this organization (null: a personal key). */
  keyVerifiedAs(organizationId: string | null): void {
    this.keyVerified = true;
    const known = this.#remembered.keys?.[this.#fingerprint];
    this.#keyOrg = organizationId;
    if (known !== undefined && known.organization_id === organizationId) return;
    this.#remembered = {
      ...this.#remembered,
      keys: { ...this.#remembered.keys, [this.#fingerprint]: { organization_id: organizationId } },
    };
    this.#save();
  }

  /** What the routes in use are, for `whoami --verbose` and the `i` detail. */
  describe(): { sessions: string; events: string; integrations: string; codeHosting: string } {
    const say = (path: string) => {
      const family = familyOf(path);
      const own = family === EVENTS || this.#remembered.families?.[family] !== undefined;
      const how = this.#confirmed.has(family)
        ? "answered in this run"
        : !this.isLearned(family)
          ? "not tried yet"
          : !own && this.#baseConfirmed
            ? "the API's mount, found in this run"
            : "remembered from an earlier run";
      return `${inMount(path, this.mountOf(family))} (${how})`;
    };
    return {
      sessions: say(PATHS.sessions),
      events: say("/api/cloud/sessions/{id}/events"),
      integrations: say(INTEGRATION_PATHS.linearIntegrations),
      codeHosting: say(INTEGRATION_PATHS.installations),
    };
  }

  #save(): void {
    try {
      this.#store?.save(this.baseUrl, this.#remembered);
    } catch {
      // A cache that cannot be written costs a probe next run, nothing more.
    }
  }
}
