import type { Command } from "commander";
import { closeDefaultAgent } from "../../client/transport.js";
import { resolveCredentials } from "../../credentials/resolve.js";
import { isSessionId } from "../../protocol/resources.js";
import { stripAnsi } from "../../text/sanitize.js";
import { globalOptions, tuningFromEnv } from "../context.js";
import { fail, out, registerSecret } from "../output.js";
import { parsePositiveInt } from "./sessions.js";

interface SnapshotOptions {
  width: number;
  height: number;
  after: number;
  open?: string[];
  demo?: boolean;
  ansi?: boolean;
  fleet?: boolean;
}

function collect(value: string, prev: string[] = []): string[] {
  return [...prev, value];
}

/**
 * Renders the UI headlessly at a fixed size for a while and prints the final frame as text:
 * for docs, bug reports and CI. `--demo` renders against an in-process reference service.
 */
export function registerSnapshotCommand(program: Command): void {
  program
    .command("snapshot")
    .description("render the terminal UI headlessly and print the final frame as text")
    .option("--width <cols>", "terminal columns", parsePositiveInt, 120)
    .option("--height <rows>", "terminal rows", parsePositiveInt, 36)
    .option(
      "--after <ms>",
      "how long to let it run before taking the frame",
      parsePositiveInt,
      1500,
    )
    .option("--open <session_id>", "open this session in a pane (repeatable)", collect)
    .option("--demo", "render against an in-process reference service with an owner key")
    .option("--ansi", "keep colours and styles in the output")
    .option("--fleet", "render the fleet view (every session in one table)")
    .action(async (opts: SnapshotOptions, cmd: Command) => {
      for (const id of opts.open ?? []) {
        if (!isSessionId(id)) {
          cmd.error(`error: '${id}' is not a session id (expected ses_<id> or a UUID)`, {
            exitCode: 2,
            code: "agent-sessions.usage",
          });
        }
      }
      let server: { close(): Promise<void> } | null = null;
      try {
        let conn: { baseUrl: string; apiKey: string; profile: string };
        let open = opts.open ?? [];
        if (opts.demo) {
          const { startServer } = await import("../../server/index.js");
          const s = await startServer({ seed: 42, paceMs: 120, heartbeatMs: 1000 });
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
        out(opts.ansi ? frame : stripAnsi(frame));
      } catch (e) {
        fail(e);
      } finally {
        await closeDefaultAgent();
        await server?.close();
      }
    });
}

async function renderSnapshot(
  conn: { baseUrl: string; apiKey: string; profile: string; organizationId?: string | null },
  open: string[],
  opts: SnapshotOptions,
): Promise<string> {
  // Ink's colours follow whether stdout is a terminal; `--ansi > file` asks for them anyway.
  // Set before Ink (and its chalk) first load: the colour level is read once, at import.
  if (opts.ansi && process.env.FORCE_COLOR === undefined) process.env.FORCE_COLOR = "1";
  const [{ render }, React, { App }, { buildServices }, { VirtualTerminal, SilentInput }] =
    await Promise.all([
      import("ink"),
      import("react"),
      import("../../ui/index.js"),
      import("../tui/buildServices.js"),
      import("../tui/virtualTerminal.js"),
    ]);
  const handle = buildServices(conn, { tuning: tuningFromEnv() });
  const term = new VirtualTerminal(opts.width, opts.height);
  const input = new SilentInput();
  const noColor = !opts.ansi || (process.env.NO_COLOR ?? "") !== "";
  const instance = render(
    React.createElement(App, {
      services: handle.services,
      profile: conn.profile,
      baseUrl: conn.baseUrl,
      options: { bell: false, noColor, startInFleet: opts.fleet === true },
      initialSessions: open,
      onExit: () => {},
    }),
    {
      stdout: term as unknown as NodeJS.WriteStream,
      stdin: input as unknown as NodeJS.ReadStream,
      stderr: term as unknown as NodeJS.WriteStream,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  await new Promise((r) => setTimeout(r, opts.after));
  const frame = term.lastFrame();
  instance.unmount();
  await handle.dispose();
  return frame;
}
