import { render } from "ink";
import { App, type AppServices } from "../../ui/index.js";
import { DEFAULT_NOTIFY, type NotifyPolicy } from "../../ui/model/notifier.js";
import { savePaneNdjson } from "./savePane.js";
import { enterAlternateScreen } from "./terminal.js";

export interface RunTuiOptions {
  profile: string;
  baseUrl: string;
  /** Null shows the login screen. */
  services: AppServices | null;
  initialSessions?: readonly string[];
  onLogin?: (key: string) => Promise<AppServices>;
  /** Bell and desktop notifications (AGENT_SESSIONS_NOTIFY, AGENT_SESSIONS_BELL). */
  notify?: NotifyPolicy;
  /** Open on the fleet view. */
  fleet?: boolean;
  scrollback?: number;
  /** Called once when the UI ends, before the terminal is restored. */
  cleanup: () => Promise<void>;
}

/**
 * Runs the UI on the real terminal until q or Ctrl-C. One owner of exit: every way out goes
 * through `finish`, which unmounts, closes the streams and restores the terminal once.
 */
export async function runTui(opts: RunTuiOptions): Promise<number> {
  const stdout = process.stdout;
  const screen = enterAlternateScreen(stdout);
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
  const onSignal = () => finish(0);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("SIGINT", onSignal);

  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "";
  const notify = opts.notify ?? DEFAULT_NOTIFY;
  const instance = render(
    <App
      services={opts.services}
      profile={opts.profile}
      baseUrl={opts.baseUrl}
      options={{
        bell: notify.bell,
        osc: notify.osc ? notify.oscKind : "off",
        tmux: notify.tmux,
        startInFleet: opts.fleet ?? false,
        scrollback: opts.scrollback ?? 5000,
        maxPanes: 6,
        noColor,
      }}
      initialSessions={opts.initialSessions ?? []}
      {...(opts.onLogin ? { onLogin: opts.onLogin } : {})}
      onExit={() => finish(0)}
      onSave={savePaneNdjson}
    />,
    { exitOnCtrlC: false, patchConsole: false, maxFps: 30 },
  );
  const code = await done;
  process.off("SIGTERM", onSignal);
  process.off("SIGHUP", onSignal);
  process.off("SIGINT", onSignal);
  instance.unmount();
  instance.cleanup();
  try {
    await opts.cleanup();
  } finally {
    screen.restore();
  }
  return code;
}
