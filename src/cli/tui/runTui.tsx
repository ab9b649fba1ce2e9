import { render } from "ink";
import { App, type AppServices } from "../../ui/index.js";
import type { KeyStorage, StartKeySource } from "../../ui/model/login.js";
import { DEFAULT_NOTIFY, type NotifyPolicy } from "../../ui/model/notifier.js";
import { secrets } from "../output.js";
import { noColorAsked } from "../terminalCheck.js";
import { terminalEditor } from "./editText.js";
import { savePaneNdjson } from "./savePane.js";
import {
  enterAlternateScreen,
  MAX_FPS,
  stayOnNormalScreen,
  terminalCaps,
  terminalOutput,
} from "./terminal.js";

export interface RunTuiOptions {
  profile: string;
  baseUrl: string;
  /** Null shows the login screen (or, with `connect`, the start-up frame until it settles). */
  services: AppServices | null;
  /** Builds the services once the first frame is on screen (App's `connect`). */
  connect?: () => Promise<AppServices | null>;
  initialSessions?: readonly string[];
  onLogin?: (key: string, storage: KeyStorage) => Promise<AppServices>;
  /** No keychain to keep a key in: shown on the login screen with the ways out. */
  keychainProblem?: { message: string; hint: string | null } | null;
  /** Where the key of `services` came from (the login screen's words when it is refused). */
  keySource?: StartKeySource | null;
  /** Where the login screen's plain-text choice writes the key. */
  keyFile?: string | null;
  /** Bell and desktop notifications (AGENT_SESSIONS_NOTIFY, AGENT_SESSIONS_BELL). */
  notify?: NotifyPolicy;
  /** Open on the fleet view. */
  fleet?: boolean;
  scrollback?: number;
  /** Called once when the UI ends, before the terminal is restored. */
  cleanup: () => Promise<void>;
  /** The UI's clock (a replay's position); default the wall clock. */
  now?: () => number;
}

/** The alternate screen again, cleared, cursor hidden, after the terminal was lent out. */
const RETAKE_ALT = "\u001b[?1049h\u001b[H\u001b[2J\u001b[?25l";

/**
 * Runs the UI on the real terminal until q or Ctrl-C. One owner of exit: every way out goes
 * through `finish`, which unmounts, closes the streams and restores the terminal once.
 */
export async function runTui(opts: RunTuiOptions): Promise<number> {
  const stdout = process.stdout;
  const caps = terminalCaps();
  // On the alternate screen every position is known: only the cells that change are written.
  // TERM=dumb keeps the normal screen and Ink's own writing (ASCII through the glyph table).
  const screen = caps.altScreen ? enterAlternateScreen(stdout) : stayOnNormalScreen(stdout);
  // Every frame passes the frame guard before the writer compares it (see terminalOutput).
  const output = terminalOutput(stdout, caps, secrets);
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });
  let finishing = false;
  const finish = (code: number) => {
    if (finishing) return;
    finishing = true;
    resolveDone(code);
  };
  // The start-up's services could not be built: the UI ends and runTui rejects with why.
  let failure: { error: unknown } | null = null;
  const onSignal = () => finish(0);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("SIGINT", onSignal);

  // While the terminal is lent out (the shell full screen), nothing of the UI's reaches it.
  let lent = false;
  const noColor = noColorAsked();
  const notify = opts.notify ?? DEFAULT_NOTIFY;
  const instance = render(
    <App
      services={opts.services}
      {...(opts.connect
        ? {
            connect: opts.connect,
            onError: (error: unknown) => {
              failure ??= { error };
              finish(1);
            },
          }
        : {})}
      profile={opts.profile}
      baseUrl={opts.baseUrl}
      options={{
        bell: notify.bell,
        osc: notify.osc ? notify.oscKind : "off",
        tmux: notify.tmux,
        // Straight to the terminal: the frame guard and the diff writer keep OSC out of frames.
        notifyOut: (data: string) => {
          if (!lent) stdout.write(data);
        },
        startInFleet: opts.fleet ?? false,
        scrollback: opts.scrollback ?? 5000,
        noColor,
      }}
      initialSessions={opts.initialSessions ?? []}
      {...(opts.now ? { now: opts.now } : {})}
      {...(opts.onLogin ? { onLogin: opts.onLogin } : {})}
      keychainProblem={opts.keychainProblem ?? null}
      keySource={opts.keySource ?? null}
      keyFile={opts.keyFile ?? null}
      onExit={() => finish(0)}
      onSave={(sessionId, entries, keys) => savePaneNdjson(sessionId, entries, { secrets: keys })}
      onEditText={terminalEditor({
        stdout,
        stdin: process.stdin,
        altScreen: caps.altScreen,
        repaint: () => output.writer?.repaint(),
      })}
      onHandOver={async (use) => {
        lent = true;
        output.writer?.hold();
        try {
          return await use();
        } finally {
          // What used the terminal left the alternate screen and raw mode: take them again
          // (Ink sets raw mode itself when it reads keys again).
          // Not when the UI is ending (a signal while attached): the screen is given back next.
          if (caps.altScreen && !finishing) stdout.write(RETAKE_ALT);
          lent = false;
          output.writer?.release();
        }
      }}
    />,
    {
      stdout: output.stream as unknown as NodeJS.WriteStream,
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: MAX_FPS,
    },
  );
  // Also on an uncaught error, which skips `finish`: unmount before the screen is given back,
  // and send the last frame the diff writer holds while the alternate screen still shows.
  screen.beforeLeave(() => {
    instance.unmount();
    output.dispose();
  });
  const code = await done;
  process.off("SIGTERM", onSignal);
  process.off("SIGHUP", onSignal);
  process.off("SIGINT", onSignal);
  instance.unmount();
  instance.cleanup();
  output.dispose();
  try {
    await opts.cleanup();
  } finally {
    screen.restore();
  }
  if (failure) throw (failure as { error: unknown }).error;
  return code;
}
