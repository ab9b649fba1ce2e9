/**
 * `npm run bench`: every measure of issue 5 in one run, against the reference service on
 * loopback (in a child process of its own). Prints a table; `--json [PATH]` also writes it as
 * JSON (to stdout when no path is given, the table then going to stderr).
 *
 *   --quick        about a minute: shorter windows, fewer repetitions (smoke run)
 *   --only B2,B3   run only these rows (B1 is added when B2 needs it; B8 and B10 bring their
 *                  reference rows B8-ink, B8-floor and B10-ink, which `--only B8-ink`,
 *                  `--only B8-floor` or `--only B10-ink` ask for with the runs of B8 or B10
 *                  they are measured against)
 *
 * B12 (issue 14's terminal-bytes row) runs the UI through the CLI's terminal writer.
 * B8 starts the built binary on the harness's Node and on Node 24 (BENCH_NODE24, node24.ts).
 * B8-ink and B10-ink are reference rows: Ink and React alone drawing the frames the app drew
 * in the same run (B8's first full frame, B10's frames at their times). B8-floor draws B8's
 * frame the same way after loading undici's package entry, which the app's first requests need.
 * B4 and B10 run again with the on-disk event journal on (rows B4-journal, B10-journal).
 * B13 (issue 14's budget row) runs the built `watch --json` against the documented limit.
 * B10-budget (issue 30's budget row) runs the UI on 500 sessions and 50 fleet streams against it.
 * Issue 35's rows (scaleRows.ts): B10-2000 (the fleet at 2,000 listed, 100 live) with its
 * reference B10-2000-ink, B15 (the prompt box and its answer under B4's load), B16 (a pane of
 * 100,000 lines); B15-ink and B16-ink are their references (Ink alone drawing the frame
 * pairs they timed: the frame before a key or a piece of an answer, and the one showing it).
 *   --json [PATH]  machine-readable output
 *   --markdown     print the table as Markdown (for docs/performance.md)
 *   --strict       exit 1 when a target is missed (a measure that errors always exits 1)
 *   --no-ui        B6 and B7 without the Ink app (store and streams only)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { limitAllowsMs, measureBudget } from "./measures/budget.js";
import { drainThroughStore } from "./measures/clientIngest.js";
import { DIFF_VIEW_SIZE, measureDiffView } from "./measures/diffView.js";
import { measureFanout } from "./measures/fanout.js";
import { fleetSize, type InkReplayResult, measureFleet } from "./measures/fleet.js";
import { measureHistoryOpen } from "./measures/historyOpen.js";
import { measureIdle } from "./measures/idle.js";
import { measureLaunchPane } from "./measures/launchPane.js";
import { measureLiveUi } from "./measures/liveUi.js";
import { measureMemory } from "./measures/memory.js";
import { type Capture, captureStream, parseCeiling, type Rate } from "./measures/parseCeiling.js";
import { drainThroughEventSource } from "./measures/peerEventSource.js";
import { measureStartup } from "./measures/startup.js";
import { measureTerminalBytes } from "./measures/terminalBytes.js";
import { measureTerminalEcho } from "./measures/terminalEcho.js";
import { measureUiBudget } from "./measures/uiBudget.js";
import { findNode24 } from "./node24.js";
import { BENCH_DIR, median } from "./proc.js";
import { markdownTable, notMeasured, num, type Row, textTable } from "./report.js";
import {
  failed,
  INK_TARGET,
  inkStepsRow,
  log,
  mb,
  replayFleetFrames,
  stepsMeasure,
  withServer,
} from "./rowKit.js";
import { fleetScaleRows, largePaneRows, promptRows } from "./scaleRows.js";

interface Options {
  quick: boolean;
  only: Set<string> | null;
  /** undefined: no JSON; "-": stdout; else a file path. */
  json: string | undefined;
  markdown: boolean;
  strict: boolean;
  ui: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    quick: false,
    only: null,
    json: undefined,
    markdown: false,
    strict: false,
    ui: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--quick") o.quick = true;
    else if (a === "--markdown") o.markdown = true;
    else if (a === "--strict") o.strict = true;
    else if (a === "--no-ui") o.ui = false;
    else if (a === "--only") o.only = new Set((argv[++i] ?? "").toUpperCase().split(","));
    else if (a === "--json") {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("--")) {
        o.json = next;
        i++;
      } else o.json = "-";
    } else if (a.startsWith("--json=")) o.json = a.slice("--json=".length) || "-";
    else {
      process.stderr.write(`bench: unknown argument ${a}\n`);
      process.exit(2);
    }
  }
  return o;
}

/** Sizes of the two modes. Full must finish well under 5 minutes on 2 cores. */
function plan(quick: boolean) {
  return {
    // A replay of more than 16 MiB is cut by the service's slow-reader guard; 100,000 of
    // these events are about 10.7 MB per stream.
    backlogPerSession: quick ? 50_000 : 100_000,
    // B2 and B3 alternate, after one drain of each that is not counted (cold code).
    drainRepeats: quick ? 1 : 5,
    drainWarmUp: !quick,
    parseMinMs: quick ? 500 : 2000,
    // A little over 100,000 ev/s in all, so a client that keeps up measures at least that.
    uiPerSecondPerSession: 26_000,
    uiWindowMs: quick ? 4_000 : 10_000,
    // B5: a Tab every 400 ms; one not shown within 1 s is a miss.
    keyEveryMs: 400,
    keyMissMs: 1000,
    memoryEvents: quick ? 1_000_000 : 2_000_000,
    memoryRatePerSession: 50_000,
    idleMs: quick ? 5_000 : 20_000,
    startupRuns: quick ? 3 : 9,
    fanoutSessions: 500,
    fanoutPerSecond: 40,
    fanoutMs: quick ? 5_000 : 30_000,
    idleFleetSessions: 200,
    idleFleetMs: quick ? 5_000 : 30_000,
    bytesPerSecondPerSession: 10,
    bytesMs: quick ? 5_000 : 20_000,
    fleetSessions: 500,
    fleetStreams: 50,
    fleetPerSecond: 20,
    fleetMs: quick ? 6_000 : 20_000,
    // The limit allows 100 openings in 48 s, 40 in 12 s.
    budgetStreams: quick ? 40 : 100,
  };
}

function millions(n: number): string {
  return n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`;
}

/**
 * Runs a drain after a full garbage collection when the bench runs with --expose-gc (npm run
 * bench does): what one drain left behind is not collected during the next one's clock.
 */
async function settled<T>(drain: () => Promise<T>): Promise<T> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    await new Promise((r) => setTimeout(r, 100));
  }
  return drain();
}

async function throughputRows(p: ReturnType<typeof plan>, want: (id: string) => boolean) {
  const rows: Row[] = [];
  const N = p.backlogPerSession;
  await withServer(
    { seed: 1, paceMs: 0, heartbeatMs: 1000, sessionCount: 4, historyLimit: N },
    async (srv) => {
      const ids = srv.sessionIds.slice(0, 4);
      await srv.fill(ids, N);
      log(`B1: capturing ${N * ids.length} events of 4 sessions`);
      const captures: Capture[] = await Promise.all(
        ids.map((id) => captureStream(srv.url, srv.ownerKey, id, N)),
      );
      const bytes = captures.reduce((a, c) => a + c.reduce((x, b) => x + b.length, 0), 0);
      const b1 = parseCeiling(captures, p.parseMinMs);
      rows.push({
        id: "B1",
        measure:
          "parse ceiling: recorded bytes of 4 busy sessions → eventsource-parser + JSON.parse, in memory",
        value: `${num(b1.perSecond)} ev/s`,
        target: "reference",
        pass: null,
        figures: { eventsPerSecond: b1.perSecond, bytes, eventsPerPass: N * ids.length },
      });
      if (!want("B2") && !want("B3")) return;
      const drainB2 = () => drainThroughStore(srv.url, srv.ownerKey, ids, N, 120_000);
      const drainB3 = () => drainThroughEventSource(srv.url, srv.ownerKey, ids, N, 120_000);
      if (p.drainWarmUp) {
        log("B2/B3: one drain of each to warm up (not counted)");
        if (want("B2")) await settled(drainB2);
        if (want("B3")) await settled(drainB3);
      }
      const b2s: Rate[] = [];
      const b3s: Rate[] = [];
      for (let i = 0; i < p.drainRepeats; i++) {
        // Each pair runs back to back, the first of it alternating, so a slow stretch of the
        // host weighs on both sides of a pair and neither always goes first.
        const order = i % 2 === 0 ? (["B2", "B3"] as const) : (["B3", "B2"] as const);
        for (const id of order) {
          if (!want(id)) continue;
          log(`${id}: drain ${i + 1}/${p.drainRepeats}`);
          if (id === "B2") b2s.push(await settled(drainB2));
          else b3s.push(await settled(drainB3));
        }
      }
      const b2 = b2s.length > 0 ? median(b2s.map((r) => r.perSecond)) : null;
      const b3 = b3s.length > 0 ? median(b3s.map((r) => r.perSecond)) : null;
      if (b2 !== null) {
        const ratio = b2 / b1.perSecond;
        rows.push({
          id: "B2",
          measure:
            "our client, no UI: 4 loopback streams → subscription → sanitize → ring buffers (store)",
          value: `${num(b2)} ev/s = ${num(ratio, 2)} × B1`,
          target: "≥ 0.6 × B1",
          pass: ratio >= 0.6,
          figures: { eventsPerSecond: b2, ratioToB1: ratio, runs: b2s.length },
        });
      }
      if (b3 !== null) {
        // Pair by pair: the host's speed moves from drain to drain far more than the two
        // clients differ, and both drains of a pair share it.
        const pairs = b2s.map((r, i) => r.perSecond / (b3s[i] as Rate).perSecond);
        const ratio = pairs.length > 0 ? median(pairs) : null;
        rows.push({
          id: "B3",
          measure: "peer: `eventsource` package on the same 4 streams, each event to a no-op",
          value: `${num(b3)} ev/s${ratio !== null ? `; B2 = ${num(ratio, 2)} × B3 (median of ${b3s.length} pairs)` : ""}`,
          target: "B2 ≥ 1.0 × B3",
          pass: ratio !== null ? ratio >= 1 : null,
          figures: {
            eventsPerSecond: b3,
            b2OverB3: ratio,
            runs: b3s.length,
            pairRatios: pairs.map((x) => num(x, 2)).join(" "),
          },
        });
      }
    },
  );
  return rows;
}

async function memoryRow(p: ReturnType<typeof plan>, ui: boolean): Promise<Row> {
  const total = p.memoryEvents;
  const quarter = total / 4;
  const label = `RSS(${millions(total)}) − RSS(${millions(quarter)})`;
  const target = `peak ≤ 300 MB, ${label} ≤ 30 MB`;
  const measure = `memory: ${millions(total)} events across 4 ${ui ? "panes (Ink app, store, ring buffers)" : "streams (store, ring buffers; no UI)"}`;
  try {
    const r = await withServer(
      { seed: 2, paceMs: 0, heartbeatMs: 1000, sessionCount: 4, historyLimit: 100_000 },
      (srv) => measureMemory(srv, srv.sessionIds.slice(0, 4), total, p.memoryRatePerSession, ui),
    );
    const growth = r.at2MMb - r.at500kMb;
    return {
      id: "B6",
      measure,
      value: `peak ${mb(r.peakMb)}; ${label} = ${growth >= 0 ? "+" : ""}${mb(growth)}`,
      target,
      pass: r.peakMb <= 300 && growth <= 30 && r.events === total,
      figures: { ...r, growthMb: growth },
    };
  } catch (e) {
    return failed("B6", measure, target, e);
  }
}

const IDLE_HEARTBEAT_MS = 1000;

async function idleRow(p: ReturnType<typeof plan>, ui: boolean): Promise<Row> {
  const secs = p.idleMs / 1000;
  const measure = `idle: 4 ${ui ? "panes open (Ink app)" : "streams open (no UI)"}, heartbeats only (1/s each), ${secs} s`;
  // An idle figure means something only if the streams were alive: the service sends one
  // heartbeat a second per stream, so a window that saw fewer than half of them measured
  // silence, not idling.
  const minBeats = Math.floor((0.5 * 4 * p.idleMs) / IDLE_HEARTBEAT_MS);
  const target = `CPU ≤ 2 % of one core, ≥ ${minBeats} heartbeats seen`;
  try {
    // With the UI, the same window is measured without it at the same time (other sessions,
    // another process), to tell the UI's share from the streams'.
    const [r, bare] = await withServer(
      { seed: 3, paceMs: 0, heartbeatMs: IDLE_HEARTBEAT_MS, sessionCount: 8 },
      (srv) =>
        Promise.all([
          measureIdle(srv, srv.sessionIds.slice(0, 4), p.idleMs, ui),
          ui ? measureIdle(srv, srv.sessionIds.slice(4, 8), p.idleMs, false) : null,
        ]),
    );
    const without = bare ? `; without UI ${num(bare.cpuPct, 2)} %` : "";
    const problems = [
      ...(r.heartbeats < minBeats ? [`${r.heartbeats} heartbeats, need ${minBeats}`] : []),
      ...(bare && bare.heartbeats < minBeats
        ? [`${bare.heartbeats} heartbeats without UI, need ${minBeats}`]
        : []),
      ...(r.live && (bare?.live ?? true) ? [] : ["a stream was not live at the end of the window"]),
    ];
    return {
      id: "B7",
      measure,
      value: `${num(r.cpuPct, 2)} % of one core (${r.heartbeats} heartbeats${ui ? `, ${r.renders} Ink renders, ${r.frames} frames written` : ""})${without}`,
      target,
      pass: r.cpuPct <= 2 && problems.length === 0,
      figures: {
        ...r,
        minHeartbeats: minBeats,
        ...(bare ? { cpuPctWithoutUi: bare.cpuPct, heartbeatsWithoutUi: bare.heartbeats } : {}),
      },
      ...(problems.length > 0 ? { note: problems.join("; ") } : {}),
    };
  } catch (e) {
    return failed("B7", measure, target, e);
  }
}

/**
 * B11: the streams the UI holds for a fleet (store, streams controller, one request budget;
 * no Ink: the fleet view is measured by B10), 200 of them, heartbeats only.
 */
async function idleFleetRow(p: ReturnType<typeof plan>): Promise<Row> {
  const n = p.idleFleetSessions;
  const secs = p.idleFleetMs / 1000;
  const measure = `idle fleet: ${n} streams open (the UI's stores and streams, no Ink), heartbeats only (1/s each), ${secs} s`;
  const minBeats = Math.floor((0.5 * n * p.idleFleetMs) / IDLE_HEARTBEAT_MS);
  const target = `CPU ≤ 3 % of one core, ≥ ${minBeats} heartbeats seen`;
  try {
    const r = await withServer(
      { seed: 7, paceMs: 0, heartbeatMs: IDLE_HEARTBEAT_MS, sessionCount: n },
      (srv) => measureIdle(srv, srv.sessionIds.slice(0, n), p.idleFleetMs, false),
    );
    const problems = [
      ...(r.heartbeats < minBeats ? [`${r.heartbeats} heartbeats, need ${minBeats}`] : []),
      ...(r.live ? [] : ["a stream was not live at the end of the window"]),
    ];
    return {
      id: "B11",
      measure,
      value: `${num(r.cpuPct, 2)} % of one core (${num(r.heartbeats)} heartbeats)`,
      target,
      pass: r.cpuPct <= 3 && problems.length === 0,
      figures: { ...r, sessions: n, minHeartbeats: minBeats },
      ...(problems.length > 0 ? { note: problems.join("; ") } : {}),
    };
  } catch (e) {
    return failed("B11", measure, target, e);
  }
}

/** Node 22.1+ keeps compiled code between starts (main.ts turns its compile cache on). */
function hasCompileCache(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

/**
 * B8 on the harness's Node and, unless that already is Node 24, on Node 24 (node24.ts). The
 * target applies where Node keeps a compile cache; on Node 20 (past its end of life, no
 * compile cache) the row is reported only.
 */
async function startupRows(p: ReturnType<typeof plan>): Promise<Row[]> {
  const nodes: { path: string; version: string }[] = [
    { path: process.execPath, version: process.version },
  ];
  const skipped: Row[] = [];
  if (!process.version.startsWith("v24.")) {
    const n24 = findNode24(log);
    if ("path" in n24) nodes.push(n24);
    else {
      skipped.push(
        notMeasured("B8-node24", startupMeasure("v24"), startupTarget("v24"), n24.reason),
        notMeasured("B8-ink-node24", inkStartupMeasure("v24"), INK_TARGET, n24.reason),
        notMeasured("B8-floor-node24", floorStartupMeasure("v24"), INK_TARGET, n24.reason),
      );
    }
  }
  const rows: Row[] = [];
  // The frames recorded for B8-ink, in the bench's build folder, removed at the end.
  const dir = mkdtempSync(join(BENCH_DIR, "ink-floor-"));
  try {
    for (const node of nodes) rows.push(...(await startupRow(p, node, dir)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [...rows, ...skipped];
}

function startupMeasure(version: string): string {
  return `start-up on Node ${version}: built binary (the bundle) → first frame with identity and session list`;
}

function floorStartupMeasure(version: string): string {
  return `floor for B8 on Node ${version}: B8-ink's child loading undici's package entry first (the client's one transport, which the app needs before its first requests), then drawing the same frame → the same two ids`;
}

function inkStartupMeasure(version: string): string {
  return `reference for B8 on Node ${version}: Ink and React alone (bundled the same way, the same compile-cache rules) drawing the app's first full frame, recorded in the same run, as one <Text> per line → the same two ids`;
}

/** Issue 35: the app's own share of start-up, against Ink and React alone (B8-ink) on the same Node. */
const STARTUP_INK_RATIO = 1.25;
/** Issue 35: on Node 24 (with its compile cache), at most this. */
const STARTUP_NODE24_MS = 250;

function startupTarget(version: string): string {
  const share = `median ≤ ${STARTUP_INK_RATIO} × B8-ink's on the same Node`;
  return version.startsWith("v24.")
    ? `${share} and ≤ ${STARTUP_NODE24_MS} ms, with its compile cache (first frame of any kind and first starts reported)`
    : `${share}${hasCompileCache(version) ? ", with its compile cache" : " (no compile cache on this Node)"}`;
}

/** B8 on one Node, and B8-ink and B8-floor (the same frame drawn by Ink alone, and with undici) in the same runs. */
async function startupRow(
  p: ReturnType<typeof plan>,
  node: { path: string; version: string },
  inkFloor: string,
): Promise<Row[]> {
  const major = node.version.replace(/^v/, "").split(".")[0];
  const id = `B8-node${major}`;
  const target = startupTarget(node.version);
  const measure = startupMeasure(node.version);
  const refs = [
    { id: `B8-ink-node${major}`, measure: inkStartupMeasure(node.version) },
    { id: `B8-floor-node${major}`, measure: floorStartupMeasure(node.version) },
  ] as const;
  try {
    const {
      app: r,
      ink,
      floor,
    } = await withServer({ seed: 4, paceMs: 0, heartbeatMs: 15_000 }, async (srv) => {
      const me = (await (
        await fetch(`${srv.url}/api/v1/me`, {
          headers: { authorization: `Bearer ${srv.ownerKey}` },
        })
      ).json()) as { principal_id: string };
      return measureStartup(
        srv,
        me.principal_id,
        srv.sessionIds[0] as string,
        p.startupRuns,
        node.path,
        node.version,
        inkFloor,
      );
    });
    const cached = hasCompileCache(node.version);
    const firstStarts = `first starts (empty cache folder${cached ? ", no compile cache yet" : ""})`;
    const rows: Row[] = [
      {
        id,
        measure,
        value: `median ${num(r.medianMs)} ms (node -e 0: ${num(r.nodeMedianMs)} ms; × ${num(r.ratio, 1)}); first frame ${num(r.firstFrameMedianMs)} ms; ${firstStarts} ${num(r.coldMs)} ms`,
        target,
        pass:
          ink === null || ink instanceof Error
            ? null
            : ink.appRatio <= STARTUP_INK_RATIO &&
              (!node.version.startsWith("v24.") || r.medianMs <= STARTUP_NODE24_MS),
        figures: { ...r },
      },
    ];
    [ink, floor].forEach((ref, i) => {
      const { id: refId, measure: refMeasure } = refs[i] as (typeof refs)[number];
      if (ref instanceof Error) rows.push(failed(refId, refMeasure, INK_TARGET, ref));
      else if (ref) {
        rows.push({
          id: refId,
          measure: refMeasure,
          value: `median ${num(ref.medianMs)} ms (× ${num(ref.ratio, 1)} of node -e 0); the app's ${id} = × ${num(ref.appRatio, 2)} of this; ${firstStarts} ${num(ref.coldMs)} ms; frame ${ref.frameLines} rows, ${num(ref.frameSgr)} SGR sequences, ${num(ref.frameChars)} visible characters`,
          target: INK_TARGET,
          pass: null,
          figures: { ...ref, nodeMedianMs: r.nodeMedianMs, appMedianMs: r.medianMs },
        });
      }
    });
    return rows;
  } catch (e) {
    return [
      failed(id, measure, target, e),
      ...refs.map((x) => failed(x.id, x.measure, INK_TARGET, e)),
    ];
  }
}

async function fanoutRow(p: ReturnType<typeof plan>): Promise<Row> {
  const secs = p.fanoutMs / 1000;
  const measure = `fan-out: \`watch --json\` on ${p.fanoutSessions} sessions × ${p.fanoutPerSecond} ev/s × ${secs} s`;
  const target = "no event lost or duplicated; CPU and RSS reported";
  try {
    const r = await withServer(
      { seed: 5, paceMs: 0, heartbeatMs: 5000, sessionCount: p.fanoutSessions },
      (srv) => measureFanout(srv, srv.sessionIds, p.fanoutPerSecond, p.fanoutMs),
    );
    return {
      id: "B9",
      measure,
      value: `${num(r.received)}/${num(r.sent)} received, ${r.lost} lost, ${r.duplicated} duplicated; CPU ${num(r.cpuPct, 1)} % of one core; RSS ${mb(r.rssMb)} (peak ${mb(r.peakRssMb)})`,
      target,
      pass: r.lost === 0 && r.duplicated === 0 && r.received === r.sent,
      figures: { ...r },
    };
  } catch (e) {
    return failed("B9", measure, target, e);
  }
}

/** The journal's cost: the same run with it over the run without it, at most this. */
const JOURNAL_RATIO = 1.2;

/**
 * B10 without the journal (recording Ink's frames), B10-ink (Ink alone replaying them), then
 * B10 with the journal (as users run the UI), each B10 run on a fresh service; the journal's
 * run only when B10 itself is asked for.
 */
async function fleetRows(p: ReturnType<typeof plan>, journal: boolean): Promise<Row[]> {
  // The frames recorded for B10-ink, in the bench's build folder, removed at the end.
  const dir = mkdtempSync(join(BENCH_DIR, "ink-floor-"));
  let plain: Row;
  let ink: Row;
  try {
    const recorded = await fleetRow(p, false, join(dir, "b10-frames.jsonl"));
    plain = recorded.row;
    ink = inkFleetRow(p, plain, recorded.replay);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!journal) return [plain, ink];
  const measure = `B10 with the on-disk event journal on (as users run it): CPU against B10's run without it (journal off)`;
  const target = `CPU ≤ ${JOURNAL_RATIO} × B10's`;
  const withJournal = (await fleetRow(p, true)).row;
  const base = plain.figures.cpuPct;
  const cpu = withJournal.figures.cpuPct;
  if (typeof base !== "number" || typeof cpu !== "number") {
    return [plain, ink, { ...withJournal, id: "B10-journal", measure, target, pass: false }];
  }
  const ratio = cpu / base;
  return [
    plain,
    ink,
    {
      id: "B10-journal",
      measure,
      value: `${withJournal.value}; CPU × ${num(ratio, 2)} of B10's ${num(base, 1)} %`,
      target,
      pass: ratio <= JOURNAL_RATIO,
      figures: { ...withJournal.figures, cpuPctWithoutJournal: base, ratio },
    },
  ];
}

function fleetMeasure(p: ReturnType<typeof plan>): string {
  return `fleet: ${p.fleetSessions} sessions listed, the fleet view (Ink app, 200 columns) with ${p.fleetStreams} live streams at ${p.fleetPerSecond} ev/s each, ${p.fleetMs / 1000} s`;
}

/** B10-ink's row: the replay's CPU against B10's, from the same run. */
function inkFleetRow(
  p: ReturnType<typeof plan>,
  b10: Row,
  replay: InkReplayResult | Error | null,
): Row {
  const { columns, rows } = fleetSize(p.fleetStreams);
  const measure = `reference for B10: Ink alone (bundled the same way) replaying the frames Ink drew in B10's run, at their times, each as one <Text> per line, ${columns}×${rows}, through the same terminal writer; CPU over the same window after the same warm-up`;
  const target = INK_TARGET;
  if (replay === null)
    return failed("B10-ink", measure, target, new Error("B10 recorded no frames"));
  if (replay instanceof Error) return failed("B10-ink", measure, target, replay);
  const base = b10.figures.cpuPct;
  const ratio = typeof base === "number" ? base / replay.cpuPct : null;
  return {
    id: "B10-ink",
    measure,
    value: `CPU ${num(replay.cpuPct, 1)} % of one core; B10 = × ${ratio === null ? "?" : num(ratio, 2)} of this; ${num(replay.fps, 1)} fps drawn (B10: ${typeof b10.figures.fps === "number" ? num(b10.figures.fps, 1) : "?"}); ${num(replay.replayed)} of ${num(replay.recorded)} recorded frames in the window; RSS ${mb(replay.rssMb)}`,
    target,
    pass: null,
    figures: { ...replay, b10CpuPct: typeof base === "number" ? base : null, b10OverInk: ratio },
  };
}

async function fleetRow(
  p: ReturnType<typeof plan>,
  journal: boolean,
  record?: string,
): Promise<{ row: Row; replay: InkReplayResult | Error | null }> {
  const measure = fleetMeasure(p);
  const target =
    "CPU ≤ 30 % of one core, ≥ 10 fps while events change the view, key→frame p99 ≤ 100 ms, RSS ≤ 250 MB";
  try {
    const { r, replay } = await withServer(
      { seed: 10, paceMs: 0, heartbeatMs: 5000, sessionCount: p.fleetSessions },
      async (srv) => {
        const r = await measureFleet(srv, {
          sessions: p.fleetSessions,
          streams: p.fleetStreams,
          perSecondPerSession: p.fleetPerSecond,
          warmupMs: 2000,
          windowMs: p.fleetMs,
          journal,
          ...(record ? { record } : {}),
        });
        if (!record) return { r, replay: null };
        log(`B10-ink: Ink alone replaying B10's frames for ${p.fleetMs / 1000} s`);
        const replay = await replayFleetFrames(record, srv, p.fleetStreams, 2000, p.fleetMs);
        return { r, replay };
      },
    );
    return {
      row: {
        id: "B10",
        measure,
        value: `CPU ${num(r.cpuPct, 1)} % of one core; ${num(r.fps, 1)} fps (${r.inkRenders} Ink renders, ${num(r.inkRenderMsPerFrame, 1)} ms each); key→frame p99 ${num(r.keyP99Ms)} ms (p50 ${num(r.keyP50Ms)}; ${r.keyPresses} presses); RSS ${mb(r.rssMb)}; ${r.listed} listed, ${r.liveStreams} live${record ? ` (recording the frames for B10-ink: ${num(r.recordPct, 2)} % of the CPU)` : ""}`,
        target,
        pass:
          r.cpuPct <= 30 &&
          r.fps >= 10 &&
          r.keyPresses > 0 &&
          r.keyP99Ms <= 100 &&
          r.rssMb <= 250 &&
          r.listed >= p.fleetSessions &&
          r.liveStreams >= p.fleetStreams,
        figures: { ...r },
      },
      replay,
    };
  } catch (e) {
    return { row: failed("B10", measure, target, e), replay: e instanceof Error ? e : null };
  }
}

/** One B4 run: 4 panes flooding, Tab presses throughout; with or without the journal. */
function liveUiRun(p: ReturnType<typeof plan>, journal: boolean) {
  return withServer(
    { seed: 6, paceMs: 0, heartbeatMs: 1000, sessionCount: 6, historyLimit: 50_000 },
    (srv) =>
      measureLiveUi(
        srv,
        srv.sessionIds.slice(0, 4),
        p.uiPerSecondPerSession,
        2000,
        p.uiWindowMs,
        { everyMs: p.keyEveryMs, missMs: p.keyMissMs },
        journal,
      ),
  );
}

/**
 * B4's CPU per event with the on-disk event journal on (as users run the UI) against B4's
 * without it: the flood is more than the app can take, so the cost shows as CPU per event
 * taken, not as CPU alone.
 */
async function liveUiJournalRow(p: ReturnType<typeof plan>, b4: Row | undefined): Promise<Row> {
  const measure =
    "B4 with the on-disk event journal on (as users run it): CPU per event against B4's run without it (journal off)";
  const target = `CPU per event ≤ ${JOURNAL_RATIO} × B4's`;
  const perEventUs = (f: Row["figures"] | undefined) =>
    typeof f?.cpuPct === "number" && typeof f.eventsPerSecond === "number"
      ? (f.cpuPct / 100 / f.eventsPerSecond) * 1e6
      : null;
  try {
    const r = await liveUiRun(p, true);
    const figures = { ...r };
    const mine = perEventUs(figures);
    const base = perEventUs(b4?.figures);
    const ratio = mine !== null && base !== null ? mine / base : null;
    return {
      id: "B4-journal",
      measure,
      value: `${num(r.eventsPerSecond)} ev/s of ${num(r.offeredPerSecond)} offered; ${num(r.fps, 1)} fps; p99 event→frame ${num(r.p99LatencyMs)} ms; CPU ${num(r.cpuPct, 1)} % = ${mine === null ? "?" : num(mine, 2)} µs/event${ratio === null || base === null ? " (B4 not measured)" : `; × ${num(ratio, 2)} of B4's ${num(base, 2)} µs/event`}`,
      target,
      pass: ratio === null ? null : ratio <= JOURNAL_RATIO,
      figures: { ...figures, cpuUsPerEvent: mine, cpuUsPerEventWithoutJournal: base, ratio },
    };
  } catch (e) {
    return failed("B4-journal", measure, target, e);
  }
}

async function liveUiRows(p: ReturnType<typeof plan>): Promise<Row[]> {
  // Every press that shows frees the next slot, so nearly every slot of the window gets one;
  // fewer samples than this would make the p99 a figure of a handful of presses.
  const minPresses = Math.floor((0.8 * p.uiWindowMs) / p.keyEveryMs);
  const b4 = {
    id: "B4",
    measure:
      "live UI: Ink app (React production build), 4 panes, 200×50 virtual terminal, 4 streams flooding",
    target: "≥ 100,000 ev/s sustained, ≥ 15 fps, p99 event→frame ≤ 250 ms",
  };
  const b5 = {
    id: "B5",
    measure: "input under load: Tab (focus change) during B4 → frame shows it",
    target: `p99 ≤ 100 ms, every press shown within ${p.keyMissMs / 1000} s, ≥ ${minPresses} presses`,
  };
  try {
    const r = await liveUiRun(p, false);
    const b5Problems = [
      ...(r.keyMisses > 0
        ? [`${r.keyMisses} of ${r.keyPresses} presses not shown within ${p.keyMissMs / 1000} s`]
        : []),
      ...(r.keyShown < minPresses ? [`only ${r.keyShown} presses shown, need ${minPresses}`] : []),
    ];
    return [
      {
        ...b4,
        value: `${num(r.eventsPerSecond)} ev/s of ${num(r.offeredPerSecond)} offered; ${num(r.fps, 1)} fps; p99 event→frame ${num(r.p99LatencyMs)} ms (p50 ${num(r.p50LatencyMs)})`,
        pass: r.eventsPerSecond >= 100_000 && r.fps >= 15 && r.p99LatencyMs <= 250,
        figures: { ...r },
      },
      {
        ...b5,
        value: `p99 ${num(r.keyP99Ms)} ms (p50 ${num(r.keyP50Ms)}; ${r.keyShown} of ${r.keyPresses} presses shown)`,
        pass: b5Problems.length === 0 && r.keyP99Ms <= 100,
        figures: {
          keyPresses: r.keyPresses,
          keyShown: r.keyShown,
          keyMisses: r.keyMisses,
          minPresses,
          keyP50Ms: r.keyP50Ms,
          keyP99Ms: r.keyP99Ms,
        },
        ...(b5Problems.length > 0 ? { note: b5Problems.join("; ") } : {}),
      },
    ];
  } catch (e) {
    return [failed(b4.id, b4.measure, b4.target, e), failed(b5.id, b5.measure, b5.target, e)];
  }
}

async function terminalBytesRow(p: ReturnType<typeof plan>): Promise<Row> {
  const secs = p.bytesMs / 1000;
  const measure = `terminal bytes: 4 live panes at ${p.bytesPerSecondPerSession} ev/s each, 200×50, ${secs} s: bytes written per second vs repainting every frame whole (Ink's own writes of the same frames)`;
  const target = "≤ 0.25 × full-frame";
  try {
    const r = await withServer({ seed: 12, paceMs: 0, heartbeatMs: 1000, sessionCount: 4 }, (srv) =>
      measureTerminalBytes(
        srv,
        srv.sessionIds.slice(0, 4),
        p.bytesPerSecondPerSession,
        2000,
        p.bytesMs,
        { columns: 200, rows: 50 },
      ),
    );
    return {
      id: "B12",
      measure,
      value: `${num(r.bytesPerSecond)} B/s vs ${num(r.fullFrameBytesPerSecond)} B/s full-frame = ${num(r.ratio, 3)} × (${num(r.framesPerSecond, 1)} frames/s); Ink's line-level incrementalRendering: ${num(r.inkLinesBytesPerSecond)} B/s = ${num(r.inkLinesRatio, 2)} ×`,
      target,
      pass: r.ratio <= 0.25 && r.eventsPerSecond > 0,
      figures: { ...r },
    };
  } catch (e) {
    return failed("B12", measure, target, e);
  }
}

/** The limit the real service documents: 100 requests a minute, burst 20. */
const DOCUMENTED_LIMIT = { limit: 100, windowMs: 60_000, burst: 20 };

/**
 * B13: the built `watch --json` opens every stream at once against the documented limit; the
 * request budget must pace them so that none is refused, and not much slower than the limit.
 */
async function budgetRow(p: ReturnType<typeof plan>, quick: boolean): Promise<Row> {
  const n = p.budgetStreams;
  const l = DOCUMENTED_LIMIT;
  const measure = `budget: built \`watch --json\` on ${n} sessions${quick ? " (--quick; the full run opens 100)" : ""}, service limited to ${l.limit} requests/${l.windowMs / 1000} s, burst ${l.burst}: from spawn to the last stream live; the limit allows the N requests the service let through (openings and any other) in t(N), t(k) = 0 for k ≤ ${l.burst}, else max((k − ${l.burst}) × ${(l.windowMs / l.limit / 1000).toFixed(1)} s, t(k − ${l.limit}) + ${l.windowMs / 1000} s)`;
  const target = "0 × 429, last stream live ≤ 1.2 × t(N)";
  try {
    const r = await withServer(
      { seed: 13, paceMs: 0, heartbeatMs: 5000, sessionCount: n, rateLimit: l },
      (srv) => measureBudget(srv, srv.sessionIds.slice(0, n), l),
    );
    const problems = [
      ...(r.rateLimited > 0 ? [`${r.rateLimited} requests refused with 429`] : []),
      ...(r.reconnects > 0 ? [`${r.reconnects} reconnects`] : []),
    ];
    return {
      id: "B13",
      measure,
      value: `${r.live}/${r.streams} live after ${num(r.lastLiveMs / 1000, 1)} s; t(${r.requests}) = ${num(r.allowedMs / 1000, 1)} s; × ${num(r.ratio, 2)}; ${r.rateLimited} × 429 (first request ${num(r.firstRequestMs)} ms after spawn)`,
      target,
      pass: r.rateLimited === 0 && r.live === r.streams && r.ratio <= 1.2,
      figures: { ...r, limit: l.limit, windowMs: l.windowMs, burst: l.burst },
      ...(problems.length > 0 ? { note: problems.join("; ") } : {}),
    };
  } catch (e) {
    return failed("B13", measure, target, e);
  }
}

/**
 * B10-budget: the request budget the UI spends, beside B10: requests a minute at start-up and at
 * steady state for the UI with 500 sessions and 50 fleet streams, against the documented limit.
 */
async function uiBudgetRow(): Promise<Row> {
  const l = DOCUMENTED_LIMIT;
  const sessions = 500;
  const streams = 50;
  const measure = `UI budget: the app (production wiring) on the fleet view, ${sessions} sessions, ${streams} streams live, service limited to ${l.limit} requests/${l.windowMs / 1000} s, burst ${l.burst}: requests the service had in the first minute after spawn, and a minute at steady state (after the streams are live and 20 s more)`;
  const target = `steady ≤ ${Math.floor(l.limit / 3)} requests/min (a third of the limit), every stream live; start-up and 429s reported`;
  try {
    const r = await withServer(
      { seed: 15, paceMs: 0, heartbeatMs: 5000, sessionCount: sessions, rateLimit: l },
      (srv) => measureUiBudget(srv, { sessions, streams, settleMs: 20_000 }),
    );
    return {
      id: "B10-budget",
      measure,
      value: `start-up ${r.startupPerMin} requests in the first minute (streams live after ${num(r.readyS, 1)} s); steady ${num(r.steadyPerMin, 1)} requests/min; ${r.rateLimited} × 429; ${r.liveStreams}/${r.streams} live`,
      target,
      pass: r.steadyPerMin <= Math.floor(l.limit / 3) && r.liveStreams >= r.streams,
      figures: { ...r, limit: l.limit, windowMs: l.windowMs, burst: l.burst },
      ...(r.rateLimited > 0 ? { note: `${r.rateLimited} requests refused with 429` } : {}),
    };
  } catch (e) {
    return failed("B10-budget", measure, target, e);
  }
}

/** B18: from a launch's 201 to the new session's pane live (provisioning excluded). */
async function launchPaneRow(quick: boolean): Promise<Row> {
  const runs = quick ? 3 : 7;
  const measure = `launch from the UI over loopback: from the launch's 201 to the new pane live (open, its stream connected), the service's provisioning excluded (median of ${runs} launches)`;
  const target = "≤ 300 ms";
  try {
    const r = await withServer(
      { seed: 18, paceMs: 0, heartbeatMs: 15_000, sessionCount: 3 },
      (srv) => measureLaunchPane(srv, runs),
    );
    return {
      id: "B18",
      measure,
      value: `${num(r.medianMs)} ms median (max ${num(r.maxMs)} ms)`,
      target,
      pass: r.medianMs <= 300,
      figures: { ...r },
    };
  } catch (e) {
    return failed("B18", measure, target, e);
  }
}

/** B14: a pane on a session with 2,000 history entries, mount to the frame showing them. */
async function historyOpenRow(quick: boolean): Promise<Row> {
  const entries = 2000;
  const runs = quick ? 3 : 7;
  const measure = `history on open: the UI mounted with a pane on a session with ${entries.toLocaleString("en-US")} history entries over loopback, to the first frame showing its history (median of ${runs} opens; GET …/history then the divider)`;
  const target = "≤ 150 ms";
  try {
    const r = await withServer(
      { seed: 14, paceMs: 0, heartbeatMs: 15_000, sessionCount: 1 },
      (srv) => measureHistoryOpen(srv, srv.sessionIds[0] as string, entries, runs),
    );
    return {
      id: "B14",
      measure,
      value: `${num(r.medianMs)} ms median (max ${num(r.maxMs)} ms); heap ${num(r.heapUsedMiB, 1)} MiB after`,
      target,
      pass: r.medianMs <= 150,
      figures: { ...r },
    };
  } catch (e) {
    return failed("B14", measure, target, e);
  }
}

/** B19: a session terminal's key echo, drawn, and 10 MB of shell output drawn. */
async function terminalEchoRow(quick: boolean): Promise<Row> {
  const presses = quick ? 100 : 400;
  const measure = `session terminal on loopback: a key press to its echo drawn (text frame → the service's pty → emulator → frame painter), ${presses} presses; then 10 MB of shell output drawn (client CPU and RSS growth)`;
  const target = "p99 ≤ 30 ms; 10 MB: ≤ 10 s CPU, ≤ 200 MiB RSS growth";
  try {
    const r = await withServer(
      { seed: 19, paceMs: 0, heartbeatMs: 15_000, sessionCount: 4 },
      (srv) => measureTerminalEcho(srv, presses),
    );
    return {
      id: "B19",
      measure,
      value: `p99 ${num(r.p99Ms, 1)} ms (p50 ${num(r.p50Ms, 1)}, max ${num(r.maxMs, 1)}); 10 MB in ${num(r.outputSeconds, 1)} s, ${num(r.outputCpuSeconds, 2)} s CPU, +${num(r.rssGrowthMiB, 0)} MiB RSS${r.droppedBytes > 0 ? `, ${r.droppedBytes} bytes dropped (said)` : ""}`,
      target,
      pass: r.p99Ms <= 30 && r.outputCpuSeconds <= 10 && r.rssGrowthMiB <= 200,
      figures: { ...r },
    };
  } catch (e) {
    return failed("B19", measure, target, e);
  }
}

/**
 * B17: the changes view on a 10,000-line diff: its first frame, then scrolling it. B17-ink:
 * Ink alone drawing the same frame pairs (the view's first frame, each page).
 */
async function diffViewRows(quick: boolean): Promise<Row[]> {
  const lines = 10_000;
  const { columns, rows } = DIFF_VIEW_SIZE;
  const inkMeasure = stepsMeasure(
    "B17",
    "the view opened (first) or a page down (scroll)",
    columns,
    rows,
  );
  const dir = mkdtempSync(join(BENCH_DIR, "ink-steps-"));
  const steps = join(dir, "steps.jsonl");
  const scrollMs = quick ? 2000 : 5000;
  const measure = `changes view (issue 32): a ${lines.toLocaleString("en-US")}-line diff over loopback, 160×48, the UI in a measuring child bundled as the binary is (as B4–B16); the answer (git status and diff) sent → the first frame showing the diff; then PageDown 60 times a second for ${scrollMs / 1000} s: frames a second, press → frame, the child's CPU a frame, heap before and after scrolling`;
  const target =
    "first frame ≤ 100 ms; ≥ 55 frames/s, press → frame p99 ≤ 1000/60 × 2 ms; heap growth ≤ 16 MiB";
  try {
    const r = await measureDiffView(lines, scrollMs, steps);
    const growth = r.heapAfterMiB - r.heapBeforeMiB;
    const b17: Row = {
      id: "B17",
      measure,
      value: `first frame ${num(r.firstFrameMs)} ms after the answer (${num(r.readMs)} ms reading it${r.firstFrameCpuMs === null ? "" : `, then ${num(r.firstFrameCpuMs, 1)} ms of CPU to draw it`}); ${num(r.framesPerSecond, 1)} frames/s (${r.shown} of ${r.presses} presses shown), press → frame p50 ${num(r.keyP50Ms)} ms, p99 ${num(r.keyP99Ms)} ms, ${num(r.cpuPerFrameMs, 1)} ms of CPU a frame; heap ${num(r.heapBeforeMiB, 1)} → ${num(r.heapAfterMiB, 1)} MiB`,
      target,
      pass:
        r.firstFrameMs <= 100 &&
        r.framesPerSecond >= 55 &&
        r.keyP99Ms <= (1000 / 60) * 2 &&
        growth <= 16,
      figures: { ...r },
    };
    return [
      b17,
      await inkStepsRow("B17-ink", "B17", inkMeasure, steps, DIFF_VIEW_SIZE, {
        first: r.firstFrameMs,
        scroll: r.keyP99Ms,
      }),
    ];
  } catch (e) {
    return [failed("B17", measure, target, e), failed("B17-ink", inkMeasure, INK_TARGET, e)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const p = plan(opts.quick);
  const want = (id: string) => opts.only === null || opts.only.has(id.toUpperCase());
  const t0 = performance.now();
  const rows: Row[] = [];

  if (want("B1") || want("B2") || want("B3")) {
    try {
      rows.push(...(await throughputRows(p, want)));
    } catch (e) {
      rows.push(failed("B1", "parse ceiling / client throughput (B1–B3)", "see rows", e));
    }
  }
  if (want("B4") || want("B5")) {
    log(`B4/B5: live UI for ${p.uiWindowMs / 1000} s`);
    const live = await liveUiRows(p);
    rows.push(...live.filter((r) => want(r.id)));
    if (want("B4")) {
      log(`B4 with the journal on, for ${p.uiWindowMs / 1000} s`);
      rows.push(
        await liveUiJournalRow(
          p,
          live.find((r) => r.id === "B4"),
        ),
      );
    }
  }
  if (want("B6")) {
    log("B6: memory");
    rows.push(await memoryRow(p, opts.ui));
  }
  if (want("B7")) {
    log(`B7: idle for ${p.idleMs / 1000} s`);
    rows.push(await idleRow(p, opts.ui));
  }
  if (want("B8") || want("B8-INK") || want("B8-FLOOR")) {
    log("B8: start-up, and B8-ink and B8-floor in the same runs");
    rows.push(...(await startupRows(p)));
  }
  if (want("B9")) {
    log(`B9: fan-out for ${p.fanoutMs / 1000} s`);
    rows.push(await fanoutRow(p));
  }
  if (want("B11")) {
    log(`B11: idle fleet for ${p.idleFleetMs / 1000} s`);
    rows.push(await idleFleetRow(p));
  }
  if (want("B12")) {
    log(`B12: terminal bytes for ${p.bytesMs / 1000} s`);
    rows.push(await terminalBytesRow(p));
  }
  if (want("B10") || want("B10-INK")) {
    log(
      `B10: fleet for ${p.fleetMs / 1000} s${want("B10") ? ", without the journal then with it" : ""}, and B10-ink on its frames`,
    );
    rows.push(...(await fleetRows(p, want("B10"))));
  }
  if (want("B13")) {
    log(
      `B13: ${p.budgetStreams} streams against 100 requests a minute (about ${Math.round(limitAllowsMs(p.budgetStreams, DOCUMENTED_LIMIT) / 1000)} s)`,
    );
    rows.push(await budgetRow(p, opts.quick));
  }
  if (want("B14")) {
    log("B14: history on open");
    rows.push(await historyOpenRow(opts.quick));
  }
  if (want("B18")) {
    log("B18: a launch's 201 to its pane live");
    rows.push(await launchPaneRow(opts.quick));
  }
  if (want("B19")) {
    log("B19: session terminal echo and 10 MB of output");
    rows.push(await terminalEchoRow(opts.quick));
  }
  if (want("B17")) {
    log("B17: the changes view on a 10,000-line diff");
    rows.push(...(await diffViewRows(opts.quick)));
  }
  if (want("B10-budget")) {
    log(
      "B10-budget: the UI's requests a minute, 500 sessions and 50 streams, at 100 a minute (about 3 min)",
    );
    rows.push(await uiBudgetRow());
  }

  // Issue 35's rows (scaleRows.ts): B10-2000 brings its reference row B10-2000-ink.
  if (want("B10-2000") || want("B10-2000-INK")) {
    rows.push(...(await fleetScaleRows(opts.quick, want("B10-2000"))));
  }
  if (want("B15")) {
    log("B15: prompt box and answer under B4's load");
    rows.push(...(await promptRows(opts.quick)));
  }
  if (want("B16")) {
    log("B16: a pane of 100,000 lines");
    rows.push(...(await largePaneRows(opts.quick)));
  }

  const seconds = (performance.now() - t0) / 1000;
  const cpus = os.cpus();
  const report = {
    command: `npm run bench --${opts.quick ? " --quick" : ""}`.replace(/ --$/, ""),
    mode: opts.quick ? "quick" : "full",
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpu: `${cpus.length} × ${cpus[0]?.model ?? "unknown"}`,
    seconds,
    rows,
  };
  const table = opts.markdown ? markdownTable(rows) : textTable(rows);
  const header = `agent-sessions bench (${report.mode}, ${report.node}, ${report.cpu}) in ${num(seconds, 0)} s`;
  if (opts.json === "-") {
    process.stderr.write(`${header}\n${table}\n`);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`${header}\n${table}\n`);
    if (opts.json !== undefined) {
      writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
      log(`JSON written to ${opts.json}`);
    }
  }
  const errored = rows.some((r) => r.value === "error");
  const missed = rows.some((r) => r.pass === false);
  process.exitCode = errored || (opts.strict && missed) ? 1 : 0;
}

await main();
