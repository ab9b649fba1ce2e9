import type { ApiClient } from "../../client/apiClient.js";
import type { BudgetState } from "../../client/requestBudget.js";
import type { TerminalEnd } from "../../client/terminalConnection.js";
import type { GitAction, GitResult } from "../../protocol/git.js";
import type { Session } from "../../protocol/resources.js";
import type { ActStore } from "../../store/act/actStore.js";
import type { FollowUps } from "../../store/act/followUps.js";
import type { ActionsStore } from "../../store/actionsStore.js";
import type { ApprovalsBook } from "../../store/approvals/approvalsBook.js";
import type { AttentionStore } from "../../store/attention/attentionStore.js";
import type { ActivityTracker } from "../../store/fleet/activity.js";
import type { FleetStreams } from "../../store/fleet/fleetStreams.js";
import type { OverlapStore } from "../../store/fleet/overlaps.js";
import type { JournalStatusStore } from "../../store/history/journal.js";
import type { IdentityState, IdentityStore } from "../../store/identityStore.js";
import type { IntegrationsStore } from "../../store/integrations/integrationsStore.js";
import type { RateLimitStore } from "../../store/rateLimitStore.js";
import type { ReplayStore } from "../../store/replay/replayEngine.js";
import type { ReviewStore } from "../../store/review/reviewStore.js";
import type { SessionsStore } from "../../store/sessionsStore.js";
import type { TimelineEntry } from "../../store/streams/entry.js";
import type { StreamsStore } from "../../store/streams/streamsStore.js";
import type { TerminalPanes } from "../../store/terminal/terminalPanes.js";
import type { Redactor } from "../../text/redact.js";
import { MAX_PANES } from "./paneLimit.js";
import type { RoutesView } from "./sessionDetail.js";

/**
 * What the UI is given (dependency injection, no globals). The UI never talks to the network
 * itself: the stores and the stream controller do, and the UI only selects from the stores
 * and calls these.
 */

/** The git call of the API client (ApiClient satisfies it). */
export interface GitApi {
  git(sessionId: string, action: GitAction, signal?: AbortSignal): Promise<GitResult>;
}

/** Starting and ending work: launch, rename, destroy (ApiClient satisfies it). */
export type WorkApi = Pick<ApiClient, "launch" | "renameSession" | "destroySession">;

/** verify + me (ApiClient satisfies it). */
export type IdentityApi = Parameters<IdentityState["load"]>[0];

/** StreamsController satisfies it. */
export interface StreamControl {
  openStream(sessionId: string): void;
  closeStream(sessionId: string, opts?: { keep?: boolean }): void;
}

/** The live list's cadence (LiveList satisfies it). */
export interface LiveControl {
  start(): void;
  stop(): void;
  /** A key was pressed. */
  activity(): void;
  /** Something changed: refresh soon. */
  poke(reason: string): void;
}

/** The key's request budget as the UI shows it (RequestBudget satisfies it). */
export interface BudgetView {
  readonly state: BudgetState;
  subscribe(fn: () => void): () => void;
}

export interface AppServices {
  api: GitApi & IdentityApi;
  identity: IdentityStore;
  sessions: SessionsStore;
  streams: StreamsStore;
  streamControl: StreamControl;
  actions: ActionsStore;
  rateLimit: RateLimitStore;
  /** The key as it may be shown (maskKey from src/text/format.ts). */
  maskedKey: string;
  /**
   * The key's redactor: what panes draw (paneView maskWindow) and what a pane's export
   * writes (store/streams/ndjson.ts) are redacted with it over their whole sequence; absent
   * where no key is known (a replay: its journal was stored redacted).
   */
  secrets?: Redactor;
  /** The local journal's state, when the UI runs with one (or with it turned off). */
  journal?: JournalStatusStore;
  /** Set when the UI plays a recording (`agent-sessions replay`): its clock and controls. */
  replay?: ReplayStore;
  /** Every session that needs the user (list and streams), newest first. */
  attention: AttentionStore;
  /** Per-session activity of streamed sessions (sparkline, current step, changed files). */
  activity: ActivityTracker;
  /** Sessions on one repository changing the same paths. */
  overlaps: OverlapStore;
  /** The fleet view's streams (for the sessions in view, up to a cap). */
  fleetStreams: FleetStreams;
  /** When the list is read again; null where nothing refreshes it. */
  live: LiveControl | null;
  budget: BudgetView;
  /** Prompts, approvals and the lifecycle; absent where nothing can be acted on (a replay). */
  act?: ActStore;
  /** Follow-ups queued while a prompt runs (absent where nothing can be acted on, a replay). */
  followUps?: FollowUps;
  /** Launch, rename, destroy; absent where nothing can be started (a replay). */
  work?: WorkApi;
  /** The one approvals book (absent where nothing can be acted on, a replay). */
  approvals?: ApprovalsBook;
  /**
   * What the service can reach (the integrations view, the clone dialog's suggestions, git
   * failure hints); absent where there is no service to ask (a replay).
   */
  integrations?: IntegrationsStore;
  /**
   * Where session routes and event streams go (the client's ServiceRoutes), named in the `i`
   * detail as `whoami --verbose` names them; absent where no service is talked to (a replay).
   */
  routes?: RoutesView;
  /** Session shells shown in panes (`$`); absent where there is no live service (a replay). */
  terminals?: TerminalPanes;
  /**
   * The session's shell on the whole terminal (`@`, cli/terminalAttach.ts, as
   * `agent-sessions attach`), run while the UI has handed the terminal over (HandOver); how
   * it ended. Absent where there is no live service.
   */
  attachShell?: (sessionId: string) => Promise<TerminalEnd>;
  /**
   * Review and take home (changes view, files browser, links menu, rewind, apply): absent
   * where no service is talked to (a replay).
   */
  review?: ReviewServices;
}

/** What the review keys need beside the stores: the calls that change things, the local side. */
export interface ReviewServices {
  store: ReviewStore;
  api: Pick<ApiClient, "rewindPrompt" | "connectPort">;
  /** The local git checkout the UI runs in; null where there is none to reach. */
  home: LocalHome | null;
  /** Open a URL in the browser (xdg-open / open); says where neither exists. */
  openUrl: OpenUrl;
}

/** Where a session's changes are taken home. */
export interface LocalHome {
  /** The local repository (its top level) and its current branch, or why there is none. */
  where(): Promise<{ root: string; branch: string | null } | { error: string }>;
  /** Apply a session's patch after a preflight; never leaves a half-applied tree. */
  apply(patch: string, sessionId: string): Promise<HomeOutcome>;
  /** The branch a session's record says it pushed (sanitized), or null. */
  branchOf(record: Session): string | null;
  /** Fetch the branch the session pushed into a local branch of the same name. */
  checkout(record: Session): Promise<HomeOutcome>;
}

/** How taking changes home went, in lines for the status line and the messages log. */
export interface HomeOutcome {
  ok: boolean;
  /** The first line is the summary; the others name files (conflicts, applied). */
  lines: readonly string[];
}

/** Opens a validated http(s) URL; `opened` false says no opener exists (the URL is shown). */
export type OpenUrl = (url: string) => Promise<{ opened: boolean; error?: string }>;

export interface AppOptions {
  /** Ring the terminal bell when a session needs attention. Default true. */
  bell: boolean;
  /**
   * Desktop notifications through the terminal (OSC 9 or 777) when a session needs
   * attention; the bell is `bell`. Default none.
   */
  osc: "off" | "9" | "777";
  /** Inside tmux: wrap notifications in its passthrough. */
  tmux: boolean;
  /**
   * Where the bell and notifications are written: the terminal itself, past the frame guard
   * and the diff writer (which keep OSC out of frames). Default Ink's stdout.
   */
  notifyOut?: (data: string) => void;
  /** Open on the fleet view (`agent-sessions fleet`). */
  startInFleet: boolean;
  /** Entries kept per pane; informational here (the streams store owns the buffers). */
  scrollback: number;
  /** Most panes open at once. Default MAX_PANES (model/paneLimit.ts). */
  maxPanes: number;
  /** No colours at all (NO_COLOR). Default false. */
  noColor: boolean;
}

export const DEFAULT_OPTIONS: AppOptions = {
  bell: true,
  osc: "off",
  tmux: false,
  startInFleet: false,
  scrollback: 5000,
  maxPanes: MAX_PANES,
  noColor: false,
};

/**
 * Ask for who the key is and the first page of sessions, unless somebody already has. The CLI
 * calls it as soon as the services exist, before the UI's code loads, so the answers usually
 * arrive in time for the first frame; the UI calls it again on mount (then a no-op).
 */
export function loadFirstScreen(
  services: Pick<AppServices, "identity" | "sessions" | "api">,
): void {
  const id = services.identity.getState();
  if (id.loadedAt === null && !id.loading) void id.load(services.api);
  const st = services.sessions.getState();
  if (st.loadedAt === null && !st.loading) void st.load();
}

/**
 * Resolves once the identity and the first page have both been answered (or failed), or after
 * `maxWaitMs`, whichever comes first: the CLI holds the first frame that long so that a quick
 * service's answers are in it and the screen is drawn once, while a slow one still gets the
 * frame (header, list skeleton) at once after that.
 */
export function firstScreenAnswered(
  services: Pick<AppServices, "identity" | "sessions">,
  maxWaitMs: number,
): Promise<void> {
  const answered = () => {
    const listed = services.sessions.getState();
    return (
      services.identity.getState().loadedAt !== null &&
      (listed.loadedAt !== null || listed.error !== null)
    );
  };
  return new Promise((resolve) => {
    const offs: (() => void)[] = [];
    const timer = setTimeout(finish, maxWaitMs);
    function finish(): void {
      clearTimeout(timer);
      for (const off of offs) off();
      resolve();
    }
    if (answered()) return finish();
    const check = () => {
      if (answered()) finish();
    };
    offs.push(services.identity.subscribe(check), services.sessions.subscribe(check));
  });
}

/**
 * Edits a text in the user's $VISUAL/$EDITOR while the UI waits (the CLI gives
 * cli/tui/editText.ts): the edited text, or why it could not be edited.
 */
export type EditText = (text: string) => { text: string } | { error: string };

/**
 * Gives the terminal to `use` until it settles (the CLI gives runTui's): the UI has stopped
 * reading keys and draws nothing meanwhile; after, the screen is the UI's again and painted
 * whole.
 */
export type HandOver = <T>(use: () => Promise<T>) => Promise<T>;

/** Writes a pane's entries somewhere and says where (the CLI gives cli/tui/savePane.ts). */
export type SaveEntries = (
  sessionId: string,
  entries: readonly TimelineEntry[],
  secrets: Redactor | undefined,
) => Promise<string>;
