/**
 * Where a service mounts its session routes, and what its key says about itself: decided
 * here, once, for ApiClient and eventStream alike.
 *
 * The interface names session routes under `/api/sessions…` (its event stream under
 * `/api/cloud/sessions/{id}/events`); the real service serves them under
 * `/api/cloud/sessions…`, where `/api/sessions…` belongs to its web dashboard and answers a
 * bearer key with 401. A session route is tried in the mount known for it; when that answers
 * 404 or 405 (or 401 while the key is known good) the other form is tried, and what worked is
 * remembered per base URL: for this process (shared by every client and stream of the key) and,
 * when a store is set (the CLI sets one: a cache file), for later runs, which then send no
 * probing request.
 *
 * The issue tracker's and the chat tool's routes are documented both as `/api/v1/…` and as
 * `/api/cloud/v1/…`: they are learned the same way, as a family of their own.
 *
 * The key's organization (from GET /api/cloud/auth/verify) is remembered alongside, per key
 * fingerprint (a hash, never the key), so the X-Organization-Id default costs one verify per
 * key and service, not one per command.
 */
import { createHash } from "node:crypto";

/**
 * "interface": `/api/sessions…`; "cloud": `/api/cloud/sessions…`. The event stream's own
 * default is "cloud", the interface's path for it.
 */
export type Mount = "interface" | "cloud";
/**
 * Session routes proper (list, get, git, history…), the event stream, and the integrations
 * documented in both forms (`/api/v1/linear|slack/…` ↔ `/api/cloud/v1/…`), learned apart.
 */
export type RouteFamily = "sessions" | "events" | "integrations";

/** What a store keeps for one base URL. */
export interface RememberedService {
  sessions?: Mount;
  events?: Mount;
  integrations?: Mount;
  /** Key fingerprint → the key's organization (null: a personal key). */
  keys?: Record<string, { organization_id: string | null }>;
}

/** Where learned routes outlive the process (the CLI's cache file); loads are synchronous. */
export interface RouteStore {
  load(baseUrl: string): RememberedService | undefined;
  save(baseUrl: string, service: RememberedService): void;
}

let store: RouteStore | null = null;

/** Sets (or with null clears) where every ServiceRoutes made from now on remembers. */
export function setRouteStore(s: RouteStore | null): void {
  store = s;
  shared.clear();
}

const SESSION_ROUTE = /^\/api\/(?:cloud\/)?sessions(?=\/|$)/;
const INTEGRATION_ROUTE = /^\/api\/(?:cloud\/)?v1(?=\/(?:linear|slack)(?:\/|\?|$))/;
const CLOUD_SUFFIX = /\/api\/cloud$/;

/** A path of a session route (either mount's form), or not. */
export function isSessionRoute(path: string): boolean {
  return SESSION_ROUTE.test(path);
}

/** A path whose mount is learned: a session route, or an integration documented in both forms. */
export function isMountedRoute(path: string): boolean {
  return SESSION_ROUTE.test(path) || INTEGRATION_ROUTE.test(path);
}

/** The path in the given mount's form (paths of no mounted family stay as they are). */
export function inMount(path: string, mount: Mount): string {
  const m = SESSION_ROUTE.exec(path);
  if (m) {
    const rest = path.slice(m[0].length);
    return `${mount === "cloud" ? "/api/cloud/sessions" : "/api/sessions"}${rest}`;
  }
  const i = INTEGRATION_ROUTE.exec(path);
  if (i) return `${mount === "cloud" ? "/api/cloud/v1" : "/api/v1"}${path.slice(i[0].length)}`;
  return path;
}

function familyOf(path: string): RouteFamily {
  if (INTEGRATION_ROUTE.test(path)) return "integrations";
  return /\/events(?:\?|$)/.test(path) ? "events" : "sessions";
}

const other = (m: Mount): Mount => (m === "cloud" ? "interface" : "cloud");

/** A base URL whose path already ends in `/api/cloud` (the real service's CLI uses one). */
export function baseEndsInCloud(baseUrl: string): boolean {
  return CLOUD_SUFFIX.test(new URL(baseUrl).pathname.replace(/\/+$/, ""));
}

/** A key's fingerprint for the cache: a hash prefix that cannot give the key back. */
export function keyFingerprint(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex").slice(0, 24);
}

/** Where the key's organization came from, for messages. */
export type OrganizationSource = "key" | "--org" | "AGENT_SESSIONS_ORG" | "the profile";

export class ServiceRoutes {
  readonly baseUrl: string;
  readonly #fingerprint: string;
  readonly #learned: Partial<Record<RouteFamily, Mount>> = {};
  /** A route of the family answered in its mount during this process: no more probing. */
  readonly #confirmed = new Set<RouteFamily>();
  #remembered: RememberedService;
  /** verify or me answered 200 in this process. */
  keyVerified = false;
  /** The key's organization: undefined until known (null for a personal key). */
  #keyOrg: string | null | undefined;

  constructor(baseUrl: string, apiKey: string, s: RouteStore | null = store) {
    this.baseUrl = baseUrl;
    this.#fingerprint = keyFingerprint(apiKey);
    this.#store = s;
    let remembered: RememberedService | undefined;
    try {
      remembered = s?.load(baseUrl);
    } catch {
      remembered = undefined;
    }
    this.#remembered = remembered ?? {};
    if (this.#remembered.sessions) this.#learned.sessions = this.#remembered.sessions;
    if (this.#remembered.events) this.#learned.events = this.#remembered.events;
    if (this.#remembered.integrations) {
      this.#learned.integrations = this.#remembered.integrations;
    }
    const key = this.#remembered.keys?.[this.#fingerprint];
    if (key !== undefined) this.#keyOrg = key.organization_id;
  }

  readonly #store: RouteStore | null;

  /** The mount a family's routes go to first. */
  mountOf(family: RouteFamily): Mount {
    const learned = this.#learned[family];
    if (learned) return learned;
    // The interface names the stream under /api/cloud/… whatever the other routes' mount.
    if (family === "events") return "cloud";
    return baseEndsInCloud(this.baseUrl) ? "cloud" : "interface";
  }

  /** Whether the family's mount came from a request or the store rather than a default. */
  isLearned(family: RouteFamily): boolean {
    return this.#learned[family] !== undefined;
  }

  /**
   * The forms of a path to try, in order: the known mount's, then (unless that mount already
   * answered in this process) the other's. A path of no mounted family is itself alone.
   */
  candidates(path: string): string[] {
    if (!isMountedRoute(path)) return [path];
    const family = familyOf(path);
    const first = this.mountOf(family);
    const forms = [inMount(path, first)];
    if (!this.#confirmed.has(family)) forms.push(inMount(path, other(first)));
    return forms;
  }

  /** A mounted route answered (not 404/405/401) at this path: its mount is the family's. */
  worked(path: string): void {
    if (!isMountedRoute(path)) return;
    const family = familyOf(path);
    const mount: Mount = path.startsWith("/api/cloud/") ? "cloud" : "interface";
    this.#confirmed.add(family);
    if (this.#learned[family] === mount && this.#remembered[family] === mount) return;
    this.#learned[family] = mount;
    this.#remembered = { ...this.#remembered, [family]: mount };
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
  describe(): { sessions: string; events: string; integrations: string } {
    const say = (family: RouteFamily, path: string) => {
      const how = this.#confirmed.has(family)
        ? "answered in this run"
        : this.isLearned(family)
          ? "remembered from an earlier run"
          : "not tried yet";
      return `${inMount(path, this.mountOf(family))} (${how})`;
    };
    return {
      sessions: say("sessions", "/api/sessions"),
      events: say("events", "/api/sessions/{id}/events"),
      integrations: say("integrations", "/api/v1/linear/integrations"),
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

const shared = new Map<string, ServiceRoutes>();

/** The process's routes for a service and key: every client and stream of them shares it. */
export function sharedRoutes(baseUrl: string, apiKey: string): ServiceRoutes {
  const id = `${baseUrl}\n${keyFingerprint(apiKey)}`;
  let r = shared.get(id);
  if (!r) {
    r = new ServiceRoutes(baseUrl, apiKey);
    shared.set(id, r);
  }
  return r;
}
