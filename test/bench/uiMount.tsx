import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render } from "ink";
import { journalFor } from "../../src/cli/journal/journalSetup.js";
import { registerSecret, secrets } from "../../src/cli/output.js";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import type { DiffWriter } from "../../src/cli/tui/diffWriter.js";
import { MAX_FPS, terminalOutput } from "../../src/cli/tui/terminal.js";
import { App, type AppServices } from "../../src/ui/index.js";
import { VirtualKeyboard, VirtualTerminal } from "./virtualTty.js";

export interface MountedUi {
  services: AppServices;
  terminal: VirtualTerminal;
  /** The terminal writer in front of `terminal`, when mounted with `output: "cells"`. */
  writer: DiffWriter | null;
  keyboard: VirtualKeyboard;
  unmount(): Promise<void>;
}

/**
 * The Ink app as the CLI runs it (the CLI's own service builder and render options, the
 * app loading identity and sessions itself), rendered on a virtual terminal, with `sessions`
 * opened in panes at start. The CLI puts the frame guard and its terminal writer between Ink
 * and the terminal (`output: "cells"`, built by the CLI's own terminalOutput with the key
 * registered as the CLI registers it); B4 and B5 read Ink's whole frames instead ("frames",
 * the default), so their figures leave out the guard's and the writer's own work.
 */
export async function mountUi(opts: {
  url: string;
  key: string;
  sessions: readonly string[];
  columns: number;
  rows: number;
  /** Ink's own time to lay out and write each frame (not React's reconciliation). */
  onRender?: (renderMs: number) => void;
  /**
   * How frames reach the terminal: "frames", Ink repainting every frame whole (B4 reads the
   * frames); "cells", through the CLI's terminal writer (only changed cells); "lines", Ink's
   * own incrementalRendering (only changed lines).
   */
  output?: "frames" | "cells" | "lines";
  /** Open on the fleet view (`agent-sessions fleet`). */
  fleet?: boolean;
  /** With `output: "cells"`: sees every write of Ink (after the guard, before the writer). */
  tap?: (data: string) => void;
  /**
   * With the on-disk event journal, as users run the UI (it is on by default): the CLI's
   * own journal setup, in a state folder of its own that unmount() removes.
   */
  journal?: boolean;
  /** Most streams the fleet keeps open (the CLI's AGENT_SESSIONS_FLEET_STREAMS). Default 50. */
  fleetStreams?: number;
  /** Entries kept per pane (the CLI's --scrollback). Default 5000. */
  scrollback?: number;
}): Promise<MountedUi> {
  // The CLI registers the key before anything is drawn or stored: the frame guard and the
  // journal's cleaner hide it.
  if (opts.output === "cells" || opts.journal) registerSecret(opts.key);
  const stateHome = opts.journal ? mkdtempSync(join(tmpdir(), "as-bench-journal-")) : null;
  const journal =
    stateHome === null
      ? null
      : await journalFor(opts.url, {
          env: { ...process.env, XDG_STATE_HOME: stateHome, XDG_CONFIG_HOME: stateHome },
        });
  const scrollback = opts.scrollback ?? 5000;
  const handle = buildServices(
    { baseUrl: opts.url, apiKey: opts.key },
    {
      scrollback,
      ...(journal ? { journal: journal.journal, journalStatus: journal.status } : {}),
      ...(opts.fleetStreams !== undefined ? { fleetStreams: opts.fleetStreams } : {}),
    },
  );
  const terminal = new VirtualTerminal(opts.columns, opts.rows);
  let output: ReturnType<typeof terminalOutput> | null = null;
  if (opts.output === "cells") {
    output = terminalOutput(
      terminal,
      { ascii: false, altScreen: true },
      secrets,
      opts.tap ? { tap: opts.tap } : {},
    );
  }
  const writer = output?.writer ?? null;
  const keyboard = new VirtualKeyboard();
  const instance = render(
    <App
      services={handle.services}
      profile="bench"
      baseUrl={opts.url}
      initialSessions={opts.sessions}
      options={{
        bell: false,
        scrollback,
        maxPanes: 6,
        noColor: false,
        startInFleet: opts.fleet ?? false,
      }}
      onExit={() => {}}
    />,
    {
      stdout: (output?.stream ?? terminal) as unknown as NodeJS.WriteStream,
      stdin: keyboard as unknown as NodeJS.ReadStream,
      stderr: new VirtualTerminal(opts.columns, opts.rows) as unknown as NodeJS.WriteStream,
      // As src/cli/tui/runTui.tsx renders it.
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: MAX_FPS,
      ...(opts.output === "lines" ? { incrementalRendering: true } : {}),
      ...(opts.onRender
        ? { onRender: (m: { renderTime: number }) => opts.onRender?.(m.renderTime) }
        : {}),
    },
  );
  return {
    services: handle.services,
    terminal,
    writer,
    keyboard,
    async unmount() {
      instance.unmount();
      instance.cleanup();
      output?.dispose();
      await handle.dispose();
      if (stateHome !== null) rmSync(stateHome, { recursive: true, force: true });
    },
  };
}
