import { mkdtempSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Approval } from "../protocol/approvals.js";
import { recordValue } from "../protocol/values.js";
import { type Clock, ManualClock, systemClock } from "./clock.js";
import { EventStreams } from "./eventStreams.js";
import { type FaultControl, type FaultSettings, Faults } from "./faults.js";
import { Flood, type FloodResult } from "./flood.js";
import { ensureDemoRepos } from "./git/demoRepos.js";
import { GitRunner } from "./git/gitRunner.js";
import { GitWorkspaces, type PullRequest } from "./git/gitWorkspaces.js";
import { closeLaunches } from "./http/launchRoutes.js";
import { handleRequest, mountedPath } from "./http/requestHandler.js";
import type { RequestCounts } from "./http/routeKit.js";
import { IntegrationDemo } from "./integrations.js";
import { KeyRing } from "./keys.js";
import { childRandom } from "./random.js";
import { RateLimiter } from "./rateLimiter.js";
import { SessionActions } from "./sessionActions.js";
import { type SessionRecord, type SessionState, SessionTable } from "./sessionTable.js";
import { Simulator } from "./simulator.js";
import { Terminals } from "./terminal.js";

export { exposureWarning, formatBanner } from "./banner.js";
export { ManualClock } from "./clock.js";
export type { FaultControl, FaultSettings } from "./faults.js";
export { defaultFaults } from "./faults.js";
export type { FloodResult } from "./flood.js";
export type { PullRequest } from "./git/gitWorkspaces.js";
export { CLOCK_CONTROL_PATH } from "./http/clockControl.js";
export type { RequestCounts } from "./http/routeKit.js";
export type { SessionRecord, SessionState } from "./sessionTable.js";

export interface ServerOptions {
  /** Default "127.0.0.1". */
  host?: string;
  /** Default 0 (random). */
  port?: number;
  /** Default 15000. */
  heartbeatMs?: number;
  /** Mean ms between simulated events per active session; default 800; 0 = simulator off. */
  paceMs?: number;
  /** Default 6 simulated sessions. */
  sessionCount?: number;
  /** Deterministic simulator, keys and ids (tests, snapshots). */
  seed?: number;
  /**
   * The simulator's time. "system" (default): real time, as the demo runs. "manual" (or a
   * ManualClock, to choose where it starts): the simulated sessions stand still until
   * `clock.advance(ms)` (or `POST /_clock/advance`), so with a seed every test sees the same
   * sessions do the same things. Heartbeats, prompts answered through the API and rate-limit
   * windows stay on real time.
   */
  clock?: "system" | "manual" | ManualClock;
  /**
   * Default {limit: 600, windowMs: 60000}; false = no limit and no rate-limit headers. With
   * `burst`, at most that many requests at once as well (a token bucket refilled at limit per
   * window), as the real service documents it: {limit: 100, windowMs: 60000, burst: 20}.
   */
  rateLimit?: { limit: number; windowMs: number; burst?: number } | false;
  /** Events kept per session for Last-Event-ID replay and the history endpoint, default 10000. */
  historyLimit?: number;
  /**
   * Newest events sent to a subscriber without Last-Event-ID before live ones (default 0, as
   * the real service, whose stream has no history: a session's past is at `…/history`).
   */
  historyOnOpen?: number;
  /**
   * Bytes of live data a slow reader may leave queued before its stream is cut (default
   * 16 MiB). A replay never counts against it: it is written as fast as the reader takes it.
   */
  maxQueuedBytes?: number;
  /** Where bare repos and workspaces live; default a fresh temp dir removed on close(). */
  dataDir?: string;
  /** Initial fault settings (from CLI flags). */
  faults?: Partial<FaultSettings>;
  /** Request log (never contains a key); default none. */
  log?: (line: string) => void;
  /**
   * Pending approvals on the first working session from the start, as `serve` and `demo`
   * show them (default false: tests add their own with addApproval).
   */
  demoApprovals?: boolean;
  /** Milliseconds between the simulated agent's answer items (default 220: about 2 s). */
  promptStepMs?: number;
  /**
   * What times the simulated agent's answer steps: real timers (default) or the simulator's
   * clock ("clock": with a manual clock, a prompt ends only when a test advances it).
   */
  promptSteps?: "timers" | "clock";
  /**
   * Where session routes live. "interface" (default): /api/sessions… as the interface names
   * them (the event stream under both forms). "cloud": only /api/cloud/sessions…, as the real
   * service serves them; /api/sessions… answers a bearer key 401 like its web dashboard.
   */
  mount?: "interface" | "cloud";
  /** Launches an organization (or a personal key's user) may make an hour (default 30). */
  launchesPerHour?: number;
  /** A session terminal with no input this long is closed (default 10 minutes, as documented). */
  terminalIdleMs?: number;
}

export interface DemoKey {
  name: string;
  key: string;
  role: "owner" | "admin" | "member" | null;
  demonstrates: string;
}

/** The simulator's clock as a test sees it. */
export interface ServerClock {
  /** Whether only advance() moves it (ServerOptions.clock "manual"). */
  readonly manual: boolean;
  now(): number;
  /**
   * Moves a manual clock ms forward: the simulator does, synchronously, what it does in that
   * time. Returns the new time. Throws on the system clock.
   */
  advance(ms: number): number;
}

export interface ReferenceServer {
  /** e.g. http://127.0.0.1:34567 */
  url: string;
  port: number;
  /** owner, admin, member, personal, expired, demoted, legacy, readonly, expiring, listonly */
  keys: DemoKey[];
  /** The key with that demo name; throws on an unknown name. */
  key(name: string): string;
  sessionIds(): string[];
  /** The simulator's clock (see ServerOptions.clock). */
  clock: ServerClock;
  /** Copies of the session records, newest first. */
  sessions(): SessionRecord[];
  /** Names of the local repositories clone accepts (e.g. demo/app). */
  repositories: string[];
  dataDir: string;
  /**
   * Append an event (next id, delivered live, kept for replay); returns its id. A plain-object
   * payload without `ts` gets one, like every simulated event.
   */
  emit(sessionId: string, event: string, data: unknown): string;
  /** Append an event whose data text is sent exactly as given (e.g. invalid JSON). */
  emitRaw(sessionId: string, event: string, rawData: string): string;
  /** Emits state_changed (nothing when already in that state); any documented lifecycle state. */
  setState(sessionId: string, state: SessionState): void;
  /** eventsPerSecond to EACH session for durationMs, in batches; resolves when done or closed. */
  flood(sessionIds: string[], eventsPerSecond: number, durationMs: number): Promise<FloodResult>;
  pullRequests(): PullRequest[];
  faults: FaultControl;
  /** Open SSE connections. */
  connections(): number;
  /** A pending approval on a session (its id and creation time are made when not given). */
  addApproval(sessionId: string, approval?: Partial<Omit<Approval, "session_id">>): Approval;
  /** A session's approvals, newest first, as the service lists them. */
  approvals(sessionId: string): Approval[];
  /** Whether a prompt runs in the session now. */
  promptRunning(sessionId: string): boolean;
  /** The running prompt ends in an error with this message; false when none runs. */
  failPrompt(sessionId: string, message: string): boolean;
  /**
   * What the service has answered so far: requests, and 429s among them (the rate limiter's
   * and injected ones). For tests and benchmarks; not part of the HTTP interface.
   */
  requestCounts(): RequestCounts;
  /** Open session terminal WebSockets. */
  terminalConnections(): number;
  /** Stops timers, ends SSE responses, closes the server, removes a temp dataDir. */
  close(): Promise<void>;
}

const DEFAULTS = {
  host: "127.0.0.1",
  port: 0,
  heartbeatMs: 15_000,
  paceMs: 800,
  sessionCount: 6,
  rateLimit: { limit: 600, windowMs: 60_000 },
  historyLimit: 10_000,
  historyOnOpen: 0,
} as const;

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolvePromise, reject) => {
    const onError = (e: Error) => reject(e);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolvePromise(server.address() as AddressInfo);
    });
  });
}

function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

export async function startServer(opts: ServerOptions = {}): Promise<ReferenceServer> {
  const host = opts.host ?? DEFAULTS.host;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULTS.heartbeatMs;
  const paceMs = opts.paceMs ?? DEFAULTS.paceMs;
  const sessionCount = opts.sessionCount ?? DEFAULTS.sessionCount;
  const historyLimit = opts.historyLimit ?? DEFAULTS.historyLimit;
  const historyOnOpen = opts.historyOnOpen ?? DEFAULTS.historyOnOpen;
  if (!(Number.isInteger(historyOnOpen) && historyOnOpen >= 0)) {
    throw new RangeError("historyOnOpen must be a non-negative integer");
  }
  const rateLimit: ServerOptions["rateLimit"] =
    opts.rateLimit === undefined ? DEFAULTS.rateLimit : opts.rateLimit;
  if (!(heartbeatMs >= 1)) throw new RangeError("heartbeatMs must be >= 1");
  if (!(paceMs >= 0)) throw new RangeError("paceMs must be >= 0");
  if (opts.maxQueuedBytes !== undefined && !(opts.maxQueuedBytes >= 1)) {
    throw new RangeError("maxQueuedBytes must be >= 1");
  }
  if (!(Number.isInteger(sessionCount) && sessionCount >= 0)) {
    throw new RangeError("sessionCount must be a non-negative integer");
  }

  const ownsDataDir = opts.dataDir === undefined;
  const dataDir = ownsDataDir
    ? mkdtempSync(join(tmpdir(), "agent-sessions-ref-"))
    : resolve(opts.dataDir as string);
  const manualClock =
    opts.clock === "manual"
      ? new ManualClock()
      : opts.clock instanceof ManualClock
        ? opts.clock
        : null;
  const clock: Clock = manualClock ?? systemClock;
  const now = clock.now();
  const faults = new Faults(opts.faults);
  const keys = new KeyRing(childRandom(opts.seed, 1), now);
  const limiter = rateLimit
    ? new RateLimiter(rateLimit.limit, rateLimit.windowMs, rateLimit.burst ?? null)
    : null;

  let streams: EventStreams | null = null;
  const store = new SessionTable(
    childRandom(opts.seed, 2),
    sessionCount,
    now,
    historyLimit,
    (id, evs) => streams?.deliver(id, evs),
    {
      userId: keys.records.find((r) => r.name === "owner")?.userId ?? "usr_demo",
      organizationId: keys.organizationId,
    },
  );
  const git = new GitRunner(dataDir);
  let repos: Map<string, string>;
  try {
    if (!ownsDataDir) await mkdir(dataDir, { recursive: true });
    // Workspaces belong to the sessions of one run; repositories may outlive it.
    await rm(join(dataDir, "workspaces"), { recursive: true, force: true });
    repos = await ensureDemoRepos(git, dataDir);
  } catch (e) {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw e;
  }
  const workspaces = new GitWorkspaces(git, dataDir, repos, store, childRandom(opts.seed, 3));
  streams = new EventStreams(() => store, faults, heartbeatMs, opts.maxQueuedBytes);
  const simulator = new Simulator(
    store,
    faults,
    childRandom(opts.seed, 4),
    paceMs,
    (id, action) => workspaces.touchFile(id, action),
    childRandom(opts.seed, 5),
    clock,
  );

  const terminals = new Terminals({
    store,
    dataDir,
    clock,
    routePath: (path) => mountedPath(opts.mount ?? "interface", path),
    ...(opts.terminalIdleMs !== undefined ? { idleMs: opts.terminalIdleMs } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
  const actions = new SessionActions(
    store,
    (id) => simulator.poke(id),
    opts.promptStepMs,
    (id) => simulator.finishEpisode(id),
    opts.promptSteps === "clock" ? clock : systemClock,
  );
  simulator.approvalsFrom(actions);
  simulator.promptsFrom(actions);
  const ctx = {
    actions,
    keys,
    limiter,
    faults,
    store,
    streams,
    git: workspaces,
    integrations: new IntegrationDemo(keys, [...repos.keys()]),
    historyOnOpen,
    log: opts.log,
    mount: opts.mount ?? "interface",
    manualClock,
    ...(opts.launchesPerHour !== undefined ? { launchesPerHour: opts.launchesPerHour } : {}),
    terminals,
    counts: { requests: 0, rateLimited: 0, firstAt: null } as RequestCounts,
  };
  const server = createServer({ noDelay: true }, (req, res) => {
    handleRequest(ctx, req, res).catch(() => res.destroy());
  });
  server.on("upgrade", (req, socket, head) => terminals.upgrade(req, socket, head));
  // Streams live for days; the per-request timeouts of node:http must not cut them.
  server.requestTimeout = 0;
  server.timeout = 0;
  let address: AddressInfo;
  try {
    address = await listen(server, opts.port ?? DEFAULTS.port, host);
  } catch (e) {
    streams.close();
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw e;
  }
  simulator.start();
  if (opts.demoApprovals === true) actions.seedDemo();

  const floods = new Set<Flood>();
  let closing: Promise<void> | null = null;
  const demoKeys: DemoKey[] = keys.records.map((r) => ({
    name: r.name,
    key: r.key,
    role: r.role,
    demonstrates: r.demonstrates,
  }));
  const sessionOrThrow = (id: string) => {
    if (!store.get(id)) throw new Error(`unknown session ${id}`);
  };

  const api: ReferenceServer = {
    url: `http://${hostForUrl(host)}:${address.port}`,
    port: address.port,
    keys: demoKeys,
    key(name) {
      const k = demoKeys.find((d) => d.name === name);
      if (!k)
        throw new Error(
          `no demo key named ${name}; known: ${demoKeys.map((d) => d.name).join(", ")}`,
        );
      return k.key;
    },
    sessionIds: () => store.ids(),
    clock: {
      manual: manualClock !== null,
      now: () => clock.now(),
      advance(ms) {
        if (!manualClock) {
          throw new Error("the simulator runs on real time: start the server with clock: 'manual'");
        }
        return manualClock.advance(ms);
      },
    },
    sessions: () => store.order.map((s) => ({ ...s.record })),
    repositories: [...repos.keys()],
    dataDir,
    emit(sessionId, event, data) {
      sessionOrThrow(sessionId);
      const fields = recordValue(data);
      const payload = fields && !("ts" in fields) ? { ...fields, ts: Date.now() } : data;
      const [e] = store.append(sessionId, [{ event, data: JSON.stringify(payload) }]);
      return String(e?.id);
    },
    emitRaw(sessionId, event, rawData) {
      sessionOrThrow(sessionId);
      const [e] = store.append(sessionId, [{ event, data: rawData }]);
      return String(e?.id);
    },
    setState(sessionId, state) {
      sessionOrThrow(sessionId);
      store.setState(sessionId, state);
      simulator.poke(sessionId);
    },
    flood(sessionIds, eventsPerSecond, durationMs) {
      if (closing) return Promise.reject(new Error("server is closed"));
      const f = new Flood(store, sessionIds, eventsPerSecond, durationMs);
      floods.add(f);
      return f.done.finally(() => floods.delete(f));
    },
    pullRequests: () => workspaces.pullRequests.map((p) => ({ ...p })),
    faults,
    connections: () => streams.count(),
    addApproval: (sessionId, approval) => {
      sessionOrThrow(sessionId);
      return actions.addApproval(sessionId, approval);
    },
    approvals: (sessionId) => actions.approvals(sessionId),
    promptRunning: (sessionId) => actions.isBusy(sessionId),
    failPrompt: (sessionId, message) => actions.fail(sessionId, message),
    requestCounts: () => ({ ...ctx.counts }),
    terminalConnections: () => terminals.connections(),
    close() {
      if (!closing) {
        closing = (async () => {
          simulator.stop();
          closeLaunches(ctx);
          actions.close();
          for (const f of floods) f.stop();
          streams.close();
          await terminals.close();
          await new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          await workspaces.idle();
          if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
        })();
      }
      return closing;
    },
  };
  return api;
}
