import type { Command } from "commander";
import { resolveCredentials } from "../../credentials/resolve.js";
import { fileRouteStore } from "../../credentials/routeCache.js";
import { isSessionId } from "../../protocol/ids.js";
import { stripAnsi } from "../../text/sanitize.js";
import type { AppProps, AppServices } from "../../ui/index.js";
import { fitPanes, panesLeftMessage } from "../../ui/model/paneLimit.js";
import { announceWaits } from "../context.js";
import { tuningFromEnv } from "../envTuning.js";
import { globalOptions } from "../globalOptions.js";
import { err, fail, out, registerSecret, secrets } from "../output.js";
import { readRecording, replayTimeOf } from "../replayInput.js";
import { noColorAsked } from "../terminalCheck.js";

export interface SnapshotOptions {
  width: number;
  height: number;
  after: number;
  open?: string[];
  demo?: boolean;
  ansi?: boolean;
  replay?: string[];
  at?: string;
  session?: string;
  fleet?: boolean;
}

/**
 * `agent-sessions snapshot`: renders the UI headlessly at a fixed size for a while and prints
 * the final frame as text: for docs, bug reports and CI. `--demo` renders against an
 * in-process reference service.
 */
export async function runSnapshot(opts: SnapshotOptions, cmd: Command): Promise<void> {
  for (const id of opts.open ?? []) {
    if (!isSessionId(id)) {
      cmd.error(`error: '${id}' is not a session id (expected ses_<id> or a UUID)`, {
        exitCode: 2,
        code: "agent-sessions.usage",
      });
    }
  }
  // The UI opens what fits and says the rest in its status line; said here too.
  const { left } = fitPanes(opts.open ?? []);
  if (left.length > 0) err(`warning: ${panesLeftMessage(left)}`);
  if (opts.replay) {
    try {
      const frame = await renderReplaySnapshot(opts.replay, opts);
      out(await asPrinted(frame, opts), opts.ansi === true);
    } catch (e) {
      fail(e);
    }
    return;
  }
  let server: { close(): Promise<void> } | null = null;
  try {
    let conn: { baseUrl: string; apiKey: string; profile: string };
    let open = opts.open ?? [];
    if (opts.demo) {
      const { startServer } = await import("../../server/index.js");
      // Seeded, on a clock that stands still once it has played the demo's last minute: the
      // same sessions in the same states on every run, however long the frame takes.
      const past = 60_000;
      const { ManualClock } = await import("../../server/index.js");
      const s = await startServer({
        seed: 42,
        paceMs: 120,
        // Streams are live at their first heartbeat: the panes then show the history.
        heartbeatMs: 250,
        clock: new ManualClock(Date.now() - past),
      });
      s.clock.advance(past);
      server = s;
      conn = { baseUrl: s.url, apiKey: s.key("owner"), profile: "demo" };
      if (open.length === 0) open = s.sessionIds().slice(0, 2);
    } else {
      const g = globalOptions(cmd);
      const creds = await resolveCredentials({
        profile: g.profile,
        baseUrl: g.baseUrl,
        org: g.org,
      });
      conn = creds;
    }
    registerSecret(conn.apiKey);
    const frame = await renderSnapshot(conn, open, opts);
    out(await asPrinted(frame, opts), opts.ansi === true);
  } catch (e) {
    fail(e);
  } finally {
    await server?.close();
  }
}

/**
 * The frame as printed: without colours unless --ansi, and through the UI's one glyph table
 * where the terminal shows ASCII only (TERM=dumb, a locale without UTF-8), as the UI draws it.
 */
async function asPrinted(frame: string, opts: SnapshotOptions): Promise<string> {
  const text = opts.ansi ? frame : stripAnsi(frame);
  const [{ terminalCaps }, { toAscii }] = await Promise.all([
    import("../tui/terminal.js"),
    import("../../ui/context/theme.js"),
  ]);
  return terminalCaps().ascii ? toAscii(text) : text;
}

/**
 * Ink's colours follow whether stdout is a terminal; `--ansi > file` asks for them anyway. Set
 * before Ink (and its chalk) first load: the colour level is read once, at import.
 */
function colourAsAsked(opts: SnapshotOptions): void {
  if (opts.ansi && process.env.FORCE_COLOR === undefined) process.env.FORCE_COLOR = "1";
}

/**
 * The App drawn headlessly at the snapshot's size, its frames through the same guard as on a
 * real terminal (no piece of the key survives a cut line, a recording's untrusted text
 * included), no keys read; after `waitMs`, the frame once the UI has settled.
 */
async function drawnFrame(
  services: AppServices,
  app: Pick<AppProps, "profile" | "baseUrl" | "options" | "initialSessions" | "now">,
  opts: SnapshotOptions,
  waitMs = 0,
): Promise<string> {
  const [{ render }, React, { App }, { VirtualTerminal, SilentInput }, { guardStream }] =
    await Promise.all([
      import("ink"),
      // React is CommonJS: its exports are the default export, in Node and in the bundle.
      import("react").then((m) => m.default),
      import("../../ui/index.js"),
      import("../tui/virtualTerminal.js"),
      import("../tui/frameGuard.js"),
    ]);
  const term = new VirtualTerminal(opts.width, opts.height);
  const guarded = guardStream(term, secrets);
  const input = new SilentInput();
  const noColor = !opts.ansi || noColorAsked();
  const instance = render(
    React.createElement(App, {
      ...app,
      services,
      options: { bell: false, ...app.options, noColor },
      onExit: () => {},
    }),
    {
      stdout: guarded as unknown as NodeJS.WriteStream,
      stdin: input as unknown as NodeJS.ReadStream,
      stderr: guarded as unknown as NodeJS.WriteStream,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  try {
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    // On a busy machine the first reads may still be under way: the frame waits for them.
    return await settledFrame(services, term);
  } finally {
    instance.unmount();
  }
}

async function renderSnapshot(
  conn: { baseUrl: string; apiKey: string; profile: string; organizationId?: string | null },
  open: string[],
  opts: SnapshotOptions,
): Promise<string> {
  colourAsAsked(opts);
  const { buildServices } = await import("../tui/buildServices.js");
  const handle = buildServices(conn, { tuning: tuningFromEnv(), routeStore: fileRouteStore() });
  // A headless command: its waits (the budget, a retry) are said on stderr.
  const quiet = announceWaits(handle.client.rateLimit);
  try {
    return await drawnFrame(
      handle.services,
      {
        profile: conn.profile,
        baseUrl: conn.baseUrl,
        options: { startInFleet: opts.fleet === true },
        initialSessions: open,
      },
      opts,
      opts.after,
    );
  } finally {
    quiet();
    await handle.dispose();
  }
}

/**
 * The frame of a recording at one moment, the same bytes on every run: the replay is paused
 * there, the UI's clock is that moment, and the frame is taken once the UI has settled.
 */
async function renderReplaySnapshot(files: string[], opts: SnapshotOptions): Promise<string> {
  colourAsAsked(opts);
  const recording = await readRecording(files, opts.session);
  const at = replayTimeOf(opts.at ?? "end", recording);
  for (const w of recording.warnings) err(`warning: ${w}`);
  const { buildReplayServices } = await import("../tui/buildReplayServices.js");
  const handle = buildReplayServices(recording, { at, playing: false });
  const open = opts.open && opts.open.length > 0 ? opts.open : fitPanes(recording.sessions).open;
  try {
    return await drawnFrame(
      handle.services,
      {
        profile: "replay",
        baseUrl: files.join(" "),
        initialSessions: open,
        now: handle.replay.now,
      },
      opts,
    );
  } finally {
    await handle.dispose();
  }
}

/**
 * Bounded waits for the UI, never for a clock: the identity and the list read (10 s at most),
 * no stream still connecting (3 s at most; panes then read their history), everything
 * applied, then the same frame for longer than the fleet's beat (4 s at most).
 */
async function settledFrame(
  services: Pick<AppServices, "identity" | "sessions" | "streams">,
  term: { lastFrame(): string },
): Promise<string> {
  const { identity, sessions, streams } = services;
  const { selectConnectionSummary } = await import("../../store/streams/connectionSummary.js");
  const loaded = () =>
    identity.getState().loadedAt !== null && sessions.getState().loadedAt !== null;
  for (let i = 0; i < 1000 && !loaded(); i++) await new Promise((r) => setTimeout(r, 10));
  // Streams held back by the request budget may wait longer: the frame says they wait.
  const connecting = () => selectConnectionSummary(streams.getState()).connecting > 0;
  for (let i = 0; i < 300 && connecting(); i++) await new Promise((r) => setTimeout(r, 10));
  // The same frame for longer than the fleet's beat: a change it holds back is drawn by then
  // (three looks 20 ms apart took a frame whose title still counted a stream as connecting).
  const { FLEET_REFRESH_MS } = await import("../../ui/model/fleetRows.js");
  const looks = Math.ceil((FLEET_REFRESH_MS + 50) / 20);
  let frame = "";
  for (let i = 0, same = 0; i < 200 && same < looks; i++) {
    streams.getState().flushNow();
    await new Promise((r) => setTimeout(r, 20));
    const next = term.lastFrame();
    same = next === frame && next !== "" ? same + 1 : 0;
    frame = next;
  }
  return frame;
}
