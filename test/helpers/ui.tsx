/**
 * The one helper for UI tests.
 *
 * Rendering: ink-testing-library's render (debug mode: every frame is written whole), with
 * its fake stdout given a fixed size. That stdout reports 100 columns and no rows, so the
 * helper first renders an empty tree, then defines `columns`/`rows` on the stdout object and
 * renders the real tree: the app mounts at the wanted size. `resize()` changes the size and
 * emits "resize" as a real terminal does.
 *
 * Waiting: `waitForContent` polls the last frame (stripped of ANSI) until it matches, with a
 * bounded timeout and the last frame in the failure message; no fixed sleeps anywhere.
 *
 * Services: `startReference` runs the reference service on 127.0.0.1 (seeded, simulator off)
 * and builds the client, stores and stream controller with the CLI's own buildServices, so
 * views are fed by the production wiring filled from the service. `close()` stops every
 * stream and the service. `mountOnReference` (or `mountOnFixture`) mounts the App on such a
 * fixture, `mountOnHostile` on a small loopback server of the test's own routes
 * (hostileServer.ts), `mountTree` any tree a test builds; `unmountReference` (a file's
 * afterEach) ends what they started (stopAfterTest.ts), last started first.
 */
import { Text } from "ink";
import { render } from "ink-testing-library";
import type { ReactElement } from "react";
import { journalFor } from "../../src/cli/journal/journalSetup.js";
import { registerSecret } from "../../src/cli/output.js";
import {
  type BuildOptions,
  buildServices,
  type ServicesHandle,
} from "../../src/cli/tui/buildServices.js";
import type { ApiClient } from "../../src/client/apiClient.js";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import type { StreamsController } from "../../src/store/streams/streamsController.js";
import { stripAnsi } from "../../src/text/sanitize.js";
import { App, type AppProps } from "../../src/ui/App.js";
import type { AppServices } from "../../src/ui/model/services.js";
import {
  HOSTILE_KEY,
  type HostileRoutes,
  type HostileServer,
  startHostile,
} from "./hostileServer.js";
import { closeAfterTest, stopAfterTest, stopStarted } from "./stopAfterTest.js";

export const KEYS = {
  up: "\u001B[A",
  down: "\u001B[B",
  left: "\u001B[D",
  right: "\u001B[C",
  enter: "\r",
  escape: "\u001B",
  tab: "\t",
  shiftTab: "\u001B[Z",
  backspace: "\u007F",
  pageUp: "\u001B[5~",
  pageDown: "\u001B[6~",
  home: "\u001B[H",
  end: "\u001B[F",
  ctrlC: "\u0003",
  ctrlR: "\u0012",
} as const;

export type KeyName = keyof typeof KEYS;

export interface UiHarness {
  /** Last frame, ANSI and bells removed. */
  frame(): string;
  /** Last frame as written (colours included). */
  rawFrame(): string;
  /** Every write so far, raw. */
  readonly writes: readonly string[];
  /** Bells written so far. */
  bells(): number;
  columns: number;
  rows: number;
  resize(columns: number, rows: number): void;
  write(data: string): void;
  rerender(tree: ReactElement): void;
  unmount(): void;
}

const OSC = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

export function renderUi(tree: ReactElement, size: { columns: number; rows: number }): UiHarness {
  const inst = render(<Text>{""}</Text>);
  let columns = size.columns;
  let rows = size.rows;
  Object.defineProperty(inst.stdout, "columns", { get: () => columns, configurable: true });
  Object.defineProperty(inst.stdout, "rows", { get: () => rows, configurable: true });
  inst.rerender(tree);
  let unmounted = false;
  const h: UiHarness = {
    frame: () => cleanFrame(lastFrame(inst.frames)),
    rawFrame: () => lastFrame(inst.frames).replace(/\u0007/g, ""),
    writes: inst.frames,
    // A BEL that ends an OSC (a desktop notification) is not a bell.
    bells: () => inst.frames.filter((f) => f.replace(OSC, "").includes("\u0007")).length,
    get columns() {
      return columns;
    },
    get rows() {
      return rows;
    },
    resize(c, r) {
      columns = c;
      rows = r;
      inst.stdout.emit("resize");
    },
    write: (data) => inst.stdin.write(data),
    rerender: (t) => inst.rerender(t),
    unmount() {
      if (unmounted) return;
      unmounted = true;
      inst.unmount();
      inst.cleanup();
    },
  };
  return h;
}

/**
 * The last frame Ink drew. A bell or a desktop notification is a write of its own to the
 * same stdout, and may come after the frame it belongs with (the bell for an approval that
 * needs you, a moment after the pane shows it): it is not a frame. Were it taken for one, a
 * wait would see an empty screen until the next render, which an idle UI never makes.
 */
function lastFrame(writes: readonly string[]): string {
  for (let i = writes.length - 1; i >= 0; i--) {
    const w = writes[i] as string;
    if (w.replace(OSC, "").replace(/\u0007/g, "") !== "") return w;
  }
  return "";
}

export function cleanFrame(raw: string): string {
  return stripAnsi(raw).replace(/\u0007/g, "");
}

function describe(m: string | RegExp): string {
  return typeof m === "string" ? JSON.stringify(m) : String(m);
}

function matches(frame: string, m: string | RegExp | ((f: string) => boolean)): boolean {
  if (typeof m === "function") return m(frame);
  return typeof m === "string" ? frame.includes(m) : m.test(frame);
}

/**
 * How long a wait for streams to be live may take. The first frame after a mount and every
 * stream's opening (its request through the budget to the in-process reference service, the
 * service's answer, the client's first read) share one event loop with the service; on a
 * loaded two-core machine the first mount of a worker, its code not yet compiled, measured
 * 4 s to four live streams, too close to the 5 s a wait allows otherwise.
 */
export const STREAMS_LIVE_MS = 15_000;

/** Poll the last frame until it contains `m` (or the predicate holds); returns that frame. */
export async function waitForContent(
  h: Pick<UiHarness, "frame">,
  m: string | RegExp | ((frame: string) => boolean),
  timeoutMs = 5000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const f = h.frame();
    if (matches(f, m)) return f;
    if (Date.now() > deadline) {
      const what = typeof m === "function" ? "the condition" : describe(m);
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}. Last frame:\n${f}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Wait until a frame no longer contains `m`. */
export function waitForAbsence(
  h: Pick<UiHarness, "frame">,
  m: string | RegExp,
  timeoutMs = 5000,
): Promise<string> {
  return waitForContent(h, (f) => !matches(f, m), timeoutMs);
}

/** Let Ink deliver input (a lone Esc is flushed on the next check phase) and React commit. */
async function settle(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}

/** Press a named key (see KEYS) or type literal text. */
export async function pressKey(h: UiHarness, key: KeyName | (string & {})): Promise<void> {
  h.write(key in KEYS ? KEYS[key as KeyName] : key);
  await settle();
}

/** Type text one character at a time, as a person would. */
export async function typeText(h: UiHarness, text: string): Promise<void> {
  for (const ch of Array.from(text)) {
    h.write(ch);
    await settle();
  }
}

/** Send input and wait until the frame changes; returns the new frame. */
export async function sendInputAndWaitForChange(
  h: UiHarness,
  input: KeyName | (string & {}),
  timeoutMs = 5000,
): Promise<string> {
  const before = h.frame();
  h.write(input in KEYS ? KEYS[input as KeyName] : input);
  return waitForContent(h, (f) => f !== before, timeoutMs);
}

/**
 * Replace what changes between runs (ports, key tails, ages, rates, durations, clock times)
 * so snapshots are stable. The key itself never reaches a frame; its mask still varies.
 */
export function maskVolatile(frame: string): string {
  return (
    frame
      .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
      .replace(/ask_…[A-Za-z0-9_-]{4}/g, "ask_…XXXX")
      .replace(/♥ (?:—|\d+[smhd](?: \d+[smhd])?)(?: stale)?/g, "♥ AGE")
      .replace(/(?:<0\.1|\d+(?:\.\d+)?k?) ev\/s/g, "N ev/s")
      .replace(/\((\d+(?:\.\d)?s|\d+m(?: \d+s)?)\)/g, "(DURATION)")
      .replace(/\b\d{2}:\d{2}:\d{2}\b/g, "HH:MM:SS")
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, "TIMESTAMP")
      .replace(/reconnecting in \d+[smhd](?: \d+[smhd])?/g, "reconnecting in N")
      .replace(
        /resets in (~?)(\d+) s/g,
        (_m, t: string, d: string) => `resets in ${t}${"N".repeat(d.length)} s`,
      )
      // Same width as what it hides, so the frame's borders stay where they were.
      .replace(/updated (?:just now|\d+[smhd](?: \d+[smhd])? ago)/g, (m) =>
        "updated AGE".padEnd(m.length),
      )
      // How many requests are left depends on how many list refreshes a run happened to make.
      .replace(
        /\b(\d+)\/(\d+) left\b/g,
        (_m, a: string, b: string) => `${"N".repeat(a.length)}/${b} left`,
      )
      .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, "⠿")
      .replace(/… \d+\.\ds$/gm, "… ELAPSED")
  );
}

export interface UiFixture {
  server: ReferenceServer;
  services: AppServices;
  streamsController: StreamsController;
  client: ApiClient;
  /** Session ids, newest first (the list's default order). */
  ids: string[];
  close(): Promise<void>;
}

export interface FixtureOptions {
  /** Demo key name (owner, member, readonly, demoted, expiring, …). Default "owner". */
  key?: string;
  server?: ServerOptions;
  /** Load identity and the first page before rendering. Default true. */
  preload?: boolean;
  pageSize?: number;
  /** Reconnect backoff of the streams (small so reconnect tests are quick). */
  backoffBaseMs?: number;
  /** Most streams the fleet view keeps open. */
  fleetStreams?: number;
  /** The live list's cadence. */
  refreshMs?: number;
  /**
   * Record into a journal under this folder (as XDG_STATE_HOME), wired as the `ui` command
   * wires it: the key registered as the process's secret, the journal from journalFor.
   */
  journalHome?: string;
}

async function startUiFixture(opts: FixtureOptions = {}): Promise<UiFixture> {
  const server = await startServer({
    seed: 42,
    paceMs: 0,
    heartbeatMs: 1000,
    sessionCount: 4,
    rateLimit: { limit: 1000, windowMs: 60_000 },
    // The demo's seeded approval would put a session in the attention queue of every UI
    // test; tests about approvals ask for it (or add their own).
    demoApprovals: false,
    ...opts.server,
  });
  const apiKey = server.key(opts.key ?? "owner");
  let journal = {};
  if (opts.journalHome !== undefined) {
    registerSecret(apiKey);
    const chosen = await journalFor(server.url, {
      env: { HOME: opts.journalHome, XDG_STATE_HOME: opts.journalHome },
      profile: "work",
    });
    journal = {
      journal: chosen.journal,
      journalStatus: chosen.status,
      ...(chosen.followUps ? { followUpStorage: chosen.followUps } : {}),
    };
  }
  const handle = buildServices(
    { baseUrl: server.url, apiKey },
    {
      ...journal,
      tuning: { maxAttempts: 2, backoffBaseMs: 20 },
      pageSize: opts.pageSize ?? 100,
      streams: { backoffBaseMs: opts.backoffBaseMs ?? 50, maxDelayMs: 2000 },
      ...(opts.fleetStreams !== undefined ? { fleetStreams: opts.fleetStreams } : {}),
      ...(opts.refreshMs !== undefined ? { refreshMs: opts.refreshMs } : {}),
    },
  );
  const { services, client } = handle;
  if (opts.preload !== false) {
    await services.identity.getState().load(client);
    await services.sessions.getState().load();
  }
  let closed = false;
  return {
    server,
    services,
    streamsController: handle.streams,
    client,
    ids: server.sessions().map((s) => s.id),
    async close() {
      if (closed) return;
      closed = true;
      await handle.dispose();
      await server.close();
    },
  };
}

/** A fixed clock before any real event: ages read 0s and rates 0 ev/s in snapshots. */
export const FIXED_NOW = Date.UTC(2020, 0, 1, 12, 0, 0);
export const fixedNow = (): number => FIXED_NOW;

/** Deterministic content for a session: every kind of timeline entry once. */
export function emitSample(server: ReferenceServer, id: string, tag: string): void {
  server.emit(id, "prompt_progress", { type: "text", content: `Reading the failing ${tag} ` });
  server.emit(id, "prompt_progress", { type: "text", content: "test and fixing it\n" });
  server.emit(id, "process_output", {
    stream: "stdout",
    text: "\u001b[32m✓ 212 passed\u001b[0m\n",
  });
  server.emit(id, "process_output", { stream: "stderr", text: "warning: slow test\n" });
  server.emit(id, "file_changed", { path: `src/${tag}.ts`, action: "modified" });
}

/** Lines of a frame (it must never be taller than the terminal minus one row). */
export function frameHeight(frame: string): number {
  return frame.split("\n").length;
}

export interface AppHarness extends UiHarness {
  /** How many times the app asked to exit (q confirmed, Ctrl-C). */
  exits(): number;
}

/**
 * The App on these services, as the `ui` command mounts it for the service at `baseUrl`, at a
 * fixed terminal size; unmountReference unmounts it.
 */
function mountOn(
  services: AppServices,
  baseUrl: string,
  size: { columns: number; rows: number },
  props: Partial<AppProps>,
): AppHarness {
  let exits = 0;
  const ui = mountTree(
    <App
      services={services}
      profile="work"
      baseUrl={baseUrl}
      onExit={() => {
        exits++;
      }}
      {...props}
    />,
    size,
  );
  return Object.assign(ui, { exits: () => exits });
}

/** The App mounted on its own reference service (mountOnReference). */
export interface ReferenceApp {
  fx: UiFixture;
  h: AppHarness;
}

export interface MountOnReferenceOptions extends FixtureOptions {
  /** The App's props, or a function of the fixture (e.g. a pane open on one of its sessions). */
  props?: Partial<AppProps> | ((fx: UiFixture) => Partial<AppProps>);
  /** What the test sets up on the service (states, approvals) before the App mounts. */
  before?: (fx: UiFixture) => void | Promise<void>;
}

/**
 * The App on a fresh reference service at a fixed size, as most UI tests start: the fixture
 * (startReference with `opts`), then `before`, then mountOnFixture. unmountReference (a file's
 * afterEach) unmounts every one and stops its service.
 */
export async function mountOnReference(
  size: { columns: number; rows: number },
  opts: MountOnReferenceOptions = {},
): Promise<ReferenceApp> {
  const { props, before, ...fixture } = opts;
  const fx = await startReference(fixture);
  await before?.(fx);
  const h = mountOnFixture(fx, size, typeof props === "function" ? props(fx) : props);
  return { fx, h };
}

/**
 * The App on a fresh reference service (startReference with `opts`) at `size`, once its first
 * session (the newest) is listed, as most list and action tests start.
 */
export async function listedOnReference(
  size: { columns: number; rows: number },
  opts: FixtureOptions & { props?: Partial<AppProps> } = {},
): Promise<ReferenceApp & { id: string }> {
  const { props, ...fixture } = opts;
  const fx = await startReference(fixture);
  const id = fx.ids[0] as string;
  const h = mountOnFixture(fx, size, props);
  await waitForContent(h, id);
  return { fx, h, id };
}

/**
 * A fixture (startUiFixture) for a test that sets the service up between the start and the
 * mount; unmountReference stops it.
 */
export async function startReference(opts: FixtureOptions = {}): Promise<UiFixture> {
  return closeAfterTest(await startUiFixture(opts));
}

/** renderUi for a tree a test builds itself (the login screen, a start); unmountReference unmounts it. */
export function mountTree(tree: ReactElement, size: { columns: number; rows: number }): UiHarness {
  const h = renderUi(tree, size);
  stopAfterTest(() => h.unmount());
  return h;
}

/** The App on a fixture of startReference; unmountReference unmounts it. */
export function mountOnFixture(
  fx: UiFixture,
  size: { columns: number; rows: number },
  props: Partial<AppProps> = {},
): AppHarness {
  return mountOn(fx.services, fx.server.url, size, props);
}

/**
 * The services the `ui` command builds (buildServices) for the user's key (HOSTILE_KEY unless
 * given) at a loopback server, disposed by unmountReference. `opts` are buildServices' own;
 * the client tries each request once, with a short backoff base, unless `opts.tuning` says
 * otherwise (`tuning: {}`: the client's own retries).
 */
export function servicesOn(
  server: { url: string },
  opts: BuildOptions = {},
  apiKey = HOSTILE_KEY,
): ServicesHandle {
  const handle = buildServices(
    { baseUrl: server.url, apiKey },
    { tuning: { backoffBaseMs: 20, maxAttempts: 1 }, ...opts },
  );
  stopAfterTest(() => handle.dispose());
  return handle;
}

/**
 * The App on a service a test started itself, wired by servicesOn for `apiKey`, with the
 * identity and the list read before the first frame as the `ui` command reads them;
 * unmountReference unmounts it and disposes the services.
 */
export async function mountOnService(
  server: { url: string },
  apiKey: string,
  size: { columns: number; rows: number },
  opts: { services?: BuildOptions; props?: Partial<AppProps> } = {},
): Promise<{ handle: ServicesHandle; h: AppHarness }> {
  const handle = servicesOn(server, opts.services, apiKey);
  await handle.services.identity.getState().load(handle.client);
  await handle.services.sessions.getState().load();
  return { handle, h: mountOn(handle.services, server.url, size, opts.props ?? {}) };
}

/** The App mounted on a loopback server of the test's own routes (mountOnHostile). */
export interface HostileApp {
  server: HostileServer;
  handle: ServicesHandle;
  h: AppHarness;
}

export interface MountOnHostileOptions {
  /** buildServices' options (see servicesOn). */
  services?: BuildOptions;
  /** The App's props; without `options`, the App rings no bell. */
  props?: Partial<AppProps>;
}

/**
 * The App wired as the `ui` command wires it (buildServices), on a small loopback server that
 * answers `routes` (or on `server`, started by the test with startHostile), at a fixed size.
 * unmountReference (a file's afterEach) unmounts it, disposes its services and stops the server.
 */
export async function mountOnHostile(
  routes: HostileRoutes | { server: HostileServer },
  size: { columns: number; rows: number },
  opts: MountOnHostileOptions = {},
): Promise<HostileApp> {
  const server = "server" in routes ? routes.server : await startHostile(routes);
  const handle = servicesOn(server, opts.services);
  const h = mountOn(handle.services, server.url, size, { options: { bell: false }, ...opts.props });
  return { server, handle, h };
}

/**
 * Unmounts what these helpers mounted, disposes their services and stops their servers, last
 * started first (a UI test file's afterEach): everything registered with stopAfterTest.
 */
export const unmountReference = stopStarted;
