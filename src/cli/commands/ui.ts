import type { Command } from "commander";
import { EXIT } from "../../client/errors.js";
import { KeychainUnavailableError, NoCredentialsError } from "../../credentials/errors.js";
import { assertKeychainReachable } from "../../credentials/keychain.js";
import { insecureKeyPath } from "../../credentials/paths.js";
import { type KeySource, resolveCredentials, resolveTarget } from "../../credentials/resolve.js";
import { fileRouteStore } from "../../credentials/routeCache.js";
import { isSessionId } from "../../protocol/ids.js";
import type { KeyStorage } from "../../ui/model/login.js";
import { notifyPolicyFromEnv } from "../../ui/model/notifier.js";
import { fitPanes, panesLeftMessage } from "../../ui/model/paneLimit.js";
import type { AppServices } from "../../ui/model/services.js";
import { attentionSetting } from "../attentionSetting.js";
import { tuningFromEnv, uiTuningFromEnv } from "../envTuning.js";
import type { GlobalOptions } from "../globalOptions.js";
import { err, fail, registerSecret } from "../output.js";
import { hasTerminal } from "../terminalCheck.js";
import type { ServicesConnection } from "../tui/buildServices.js";

/** How long the signed-in screen waits for the identity and the first page. */
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
  // compiles in the background) while the key is found.
  const tui = import("../tui/runTui.js");
  tui.catch(() => {});
  try {
    const target = await resolveTarget({ profile: g.profile, baseUrl: g.baseUrl, org: g.org });
    const tuning = tuningFromEnv();
    const ui = uiTuningFromEnv();
    // The client (undici under it) and the stores load after the first frame (connect): the
    // start-up frame needs neither, and they cost about what Ink does (docs/performance.md).
    const buildFor = async (conn: ServicesConnection) => {
      const [{ buildServices }, { journalFor }, { localHome }] = await Promise.all([
        import("../tui/buildServices.js"),
        import("../journal/journalSetup.js"),
        import("../tui/localHome.js"),
      ]);
      const j = await journalFor(conn.baseUrl, { noJournal, profile: target.profile });
      const h = buildServices(conn, {
        tuning,
        attention: attention.config,
        routeStore: fileRouteStore(),
        // Changes are taken home into the git checkout the UI was started in.
        home: localHome(),
        ...(ui.fleetStreams !== undefined ? { fleetStreams: ui.fleetStreams } : {}),
        ...(ui.refreshMs !== undefined ? { refreshMs: ui.refreshMs } : {}),
        journal: j.journal,
        journalStatus: j.status,
        // The follow-up queues live beside the journal, one file per profile (none without it).
        ...(j.followUps ? { followUpStorage: j.followUps } : {}),
      });
      handles.push(h);
      return h.services;
    };
    const handles: { dispose(): Promise<void> }[] = [];
    let connect: (() => Promise<AppServices | null>) | null = null;
    let connecting: Promise<unknown> = Promise.resolve();
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
      connect = () => {
        const built = (async () => {
          const [services, { loadFirstScreen, firstScreenAnswered }] = await Promise.all([
            buildFor({ ...creds, keyOrganization: true }),
            import("../../ui/model/services.js"),
          ]);
          loadFirstScreen(services);
          // The signed-in screen waits a little for the first answers, so that it comes with
          // the identity and the list instead of drawing its skeleton first.
          await firstScreenAnswered(services, FIRST_FRAME_HOLD_MS);
          return services;
        })();
        connecting = built.catch(() => {});
        return built;
      };
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
    const onLogin = async (key: string, storage: KeyStorage) => {
      const { signIn } = await import("../tui/signIn.js");
      return signIn({
        target,
        secret: registerSecret,
        warn: (line) => laterWarnings.push(line),
        open: buildFor,
      })(key, storage);
    };
    const { runTui } = await tui;
    process.exitCode = await runTui({
      profile: target.profile,
      baseUrl: target.baseUrl,
      services: null,
      ...(connect ? { connect } : {}),
      initialSessions,
      onLogin,
      keychainProblem,
      keySource,
      keyFile: insecureKeyPath(target.profile),
      notify,
      fleet: g.fleet ?? false,
      cleanup: async () => {
        // Services still being built when the UI ends are closed too.
        await connecting;
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
