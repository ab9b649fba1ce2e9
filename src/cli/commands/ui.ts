import type { Command } from "commander";
import { EXIT } from "../../client/errors.js";
import { KeychainUnavailableError, NoCredentialsError } from "../../credentials/errors.js";
import { assertKeychainReachable } from "../../credentials/keychain.js";
import { insecureKeyPath } from "../../credentials/paths.js";
import { type KeySource, resolveCredentials, resolveTarget } from "../../credentials/resolve.js";
import { fileRouteStore } from "../../credentials/routeCache.js";
import { isSessionId } from "../../protocol/ids.js";
import { notifyPolicyFromEnv } from "../../ui/model/notifier.js";
import { fitPanes, panesLeftMessage } from "../../ui/model/paneLimit.js";
import { attentionSetting } from "../attentionSetting.js";
import { tuningFromEnv, uiTuningFromEnv } from "../context.js";
import type { GlobalOptions } from "../globalOptions.js";
import { err, fail, registerSecret } from "../output.js";
import { hasTerminal } from "../terminalCheck.js";

/** How long the first frame waits for the identity and the first page. */
const FIRST_FRAME_HOLD_MS = 120;

export function requireTerminal(): boolean {
  if (hasTerminal()) return true;
  err(
    "error: the terminal UI needs a terminal; for scripts use the headless commands (whoami, sessions, watch --json, git …; see --help)",
  );
  process.exitCode = EXIT.usage;
  return false;
}

/** What the UI takes from the command line: the global options (`journal: false` for
 * `--no-journal`, on the program or on `open`) and whether to start on the fleet view. */
export type UiOptions = GlobalOptions & { fleet?: boolean };

/**
 * Opens the UI for the selected profile. With no key yet it shows the login screen, which
 * verifies the pasted key and stores it in the keychain through the credentials module.
 */
export async function startUi(g: UiOptions, initialSessions: string[]): Promise<void> {
  if (!requireTerminal()) return;
  const noJournal = g.journal === false;
  const { policy: notify, warning } = notifyPolicyFromEnv(process.env);
  if (warning) err(`warning: ${warning}`);
  const attention = await attentionSetting();
  if (attention.warning) err(`warning: ${attention.warning}`);
  // Ink, React and the layout engine start loading now (the layout engine's WebAssembly
  // compiles in the background) while the key is found and the first requests go out.
  const tui = import("../tui/runTui.js");
  tui.catch(() => {});
  try {
    const target = await resolveTarget({ profile: g.profile, baseUrl: g.baseUrl, org: g.org });
    // Lazy: the stores load only when a terminal session starts.
    const [
      { buildServices },
      { journalFor },
      { loadFirstScreen, firstScreenAnswered },
      { signIn },
      { localHome },
    ] = await Promise.all([
      import("../tui/buildServices.js"),
      import("../journal/journalSetup.js"),
      import("../../ui/model/services.js"),
      import("../tui/signIn.js"),
      import("../tui/localHome.js"),
    ]);
    const withJournal = async (baseUrl: string) => {
      const j = await journalFor(baseUrl, { noJournal, profile: target.profile });
      // The follow-up queues live beside the journal, one file per profile (none without it).
      return {
        journal: j.journal,
        journalStatus: j.status,
        ...(j.followUps ? { followUpStorage: j.followUps } : {}),
      };
    };
    const tuning = tuningFromEnv();
    const ui = uiTuningFromEnv();
    const build = {
      tuning,
      attention: attention.config,
      routeStore: fileRouteStore(),
      // Changes are taken home into the git checkout the UI was started in.
      home: localHome(),
      ...(ui.fleetStreams !== undefined ? { fleetStreams: ui.fleetStreams } : {}),
      ...(ui.refreshMs !== undefined ? { refreshMs: ui.refreshMs } : {}),
    };
    const handles: { dispose(): Promise<void> }[] = [];
    let services = null;
    let keySource: KeySource | null = null;
    let keychainProblem: { message: string; hint: string | null } | null = null;
    try {
      const creds = await resolveCredentials({
        profile: g.profile,
        baseUrl: g.baseUrl,
        org: g.org,
      });
      registerSecret(creds.apiKey);
      keySource = creds.source;
      const h = buildServices(
        { ...creds, keyOrganization: true },
        { ...build, ...(await withJournal(creds.baseUrl)) },
      );
      handles.push(h);
      services = h.services;
      // Asked while Ink and React load, answered while they do.
      loadFirstScreen(services);
    } catch (e) {
      if (!(e instanceof NoCredentialsError)) throw e;
    }
    // The login screen may be shown (no key, or one the service refuses): say at once when it
    // cannot keep a key here.
    try {
      assertKeychainReachable();
    } catch (k) {
      if (!(k instanceof KeychainUnavailableError)) throw k;
      keychainProblem = { message: k.reason, hint: k.hint };
    }
    const laterWarnings: string[] = [];
    const onLogin = signIn({
      target,
      secret: registerSecret,
      warn: (line) => laterWarnings.push(line),
      open: async (conn) => {
        const h = buildServices(conn, { ...build, ...(await withJournal(conn.baseUrl)) });
        handles.push(h);
        return h.services;
      },
    });
    const { runTui } = await tui;
    // The first frame waits a little for those answers, so that it has the identity and the
    // list and is drawn once instead of twice; a slower service gets the skeleton first.
    if (services) await firstScreenAnswered(services, FIRST_FRAME_HOLD_MS);
    process.exitCode = await runTui({
      profile: target.profile,
      baseUrl: target.baseUrl,
      services,
      initialSessions,
      onLogin,
      keychainProblem,
      keySource,
      keyFile: insecureKeyPath(target.profile),
      notify,
      fleet: g.fleet ?? false,
      cleanup: async () => {
        await Promise.all(handles.map((h) => h.dispose()));
      },
    });
    // Said where it stays once the UI has gone: a key now kept in plain text.
    for (const line of laterWarnings) err(`warning: ${line}`);
  } catch (e) {
    fail(e);
  }
}

export function sessionIds(cmd: Command, ids: string[]): string[] | null {
  for (const id of ids) {
    if (!isSessionId(id)) {
      cmd.error(`error: '${id}' is not a session id (expected ses_<id> or a UUID)`, {
        exitCode: EXIT.usage,
        code: "agent-sessions.usage",
      });
      return null;
    }
  }
  // All of them go to the UI, which opens what fits and says the rest in its status line;
  // said here too, where it stays after the UI has gone.
  const { left } = fitPanes(ids);
  if (left.length > 0) err(`warning: ${panesLeftMessage(left)}`);
  return [...new Set(ids)];
}
