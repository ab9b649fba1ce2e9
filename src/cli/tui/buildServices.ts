import type { ApiClient } from "../../client/apiClient.js";
import type { SubscribeOptions } from "../../client/eventStream.js";
import type { OrganizationSource, RouteStore } from "../../client/routes.js";
import { browserOpener } from "../../local/home.js";
import { hasScope, REQUIRED_SCOPES } from "../../protocol/scopes.js";
import { createActStore } from "../../store/act/actStore.js";
import { createFollowUps, type FollowUpStorage } from "../../store/act/followUps.js";
import { createActionsStore } from "../../store/actionsStore.js";
import type { AttentionConfig } from "../../store/attention/reasons.js";
import { ActivityTracker } from "../../store/fleet/activity.js";
import { FleetStreams } from "../../store/fleet/fleetStreams.js";
import { createOverlapStore } from "../../store/fleet/overlaps.js";
import type { JournalStatusStore } from "../../store/history/journal.js";
import { createIdentityStore } from "../../store/identityStore.js";
import { createIntegrationsStore } from "../../store/integrations/integrationsStore.js";
import { firstPromptEnd } from "../../store/launch/firstPrompt.js";
import { createRateLimitStore } from "../../store/rateLimitStore.js";
import { createReviewStore } from "../../store/review/reviewStore.js";
import { createSessionWatch } from "../../store/sessionWatch.js";
import { StreamLeases } from "../../store/streams/streamLeases.js";
import type { StreamsController } from "../../store/streams/streamsController.js";
import { createTerminalPanes } from "../../store/terminal/terminalPanes.js";
import { maskKey } from "../../text/format.js";
import { keyRedactor } from "../../text/redact.js";
import type { AppServices, LocalHome, OpenUrl } from "../../ui/model/services.js";
import type { Tuning } from "../clientFactory.js";
import { createClient } from "../clientFactory.js";
import type { FileJournal } from "../journal/fileJournal.js";

export interface ServicesHandle {
  services: AppServices;
  /** The API client behind `services.api`, with every call it has. */
  client: ApiClient;
  /** The stream controller behind `services.streamControl`. */
  streams: StreamsController;
  /** Closes every stream and store subscription; safe to call twice. */
  dispose(): Promise<void>;
}

export interface BuildOptions {
  /** Entries kept per pane. Default 5000. */
  scrollback?: number;
  /** Retries, backoff and timeout of the client (and the streams' backoff base). */
  tuning?: Tuning;
  /** Sessions asked for per page. Default the sessions store's. */
  pageSize?: number;
  /** Stream settings over those the tuning gives (tests shorten reconnect waits). */
  streams?: Pick<SubscribeOptions, "backoffBaseMs" | "maxDelayMs">;
  /** The journal panes show first and record into; absent or null: none. */
  journal?: FileJournal | null;
  /** What the UI says about the journal (on, off, failed). */
  journalStatus?: JournalStatusStore;
  /** Most streams the fleet view keeps open. Default 50. */
  fleetStreams?: number;
  /** The live list's normal cadence. Default 15000. */
  refreshMs?: number;
  /** How often a pane without the event stream (no sessions:prompt) reads its record. Default 15000. */
  recordPollMs?: number;
  /** Which attention reasons notify and show (store/attention/reasons.ts). Default theirs. */
  attention?: AttentionConfig;
  /** Where the client's routes remember the service's mount for later runs; default nowhere. */
  routeStore?: RouteStore;
  /** Where the UI takes a session's changes home (default: none). */
  home?: LocalHome | null;
  /** Opens URLs in the browser (default: xdg-open / open). */
  openUrl?: OpenUrl;
  /** Where the follow-up queues are kept across runs (beside the journal); default nowhere. */
  followUpStorage?: FollowUpStorage;
  /** How often a prompt running elsewhere is read for its end (a queue waits on it). Default 3000. */
  promptEndPollMs?: number;
}

/** The service and the key the services are built for. */
export interface ServicesConnection {
  baseUrl: string;
  apiKey: string;
  organizationId?: string | null;
  organizationFrom?: OrganizationSource | null;
  /** Without organizationId, send an organization key's own organization (the CLI's way). */
  keyOrganization?: boolean;
}

/**
 * Everything the UI is given for one verified key: the client, the stores and the stream
 * controller. Network and session logic live here and below, never in components. The CLI,
 * the `snapshot` command, the benchmarks and the UI tests all build them here.
 */
export function buildServices(conn: ServicesConnection, opts: BuildOptions = {}): ServicesHandle {
  const scrollback = opts.scrollback ?? 5000;
  const journal = opts.journal ?? null;
  const tuning = opts.tuning ?? {};
  // Ended by dispose(): requests still waiting for the service (or for a retry) end with it,
  // so quitting never waits for a service that hangs.
  const stop = new AbortController();
  const client = createClient(conn, {
    tuning,
    signal: stop.signal,
    ...(opts.routeStore ? { routeStore: opts.routeStore } : {}),
  });
  // Whatever the service sends, the key is hidden where it enters the stores (and again from
  // every frame, see frameGuard.ts).
  const secrets = keyRedactor(conn.apiKey);
  const { redact } = secrets;
  const subscribeOptions = {
    ...(tuning.backoffBaseMs !== undefined ? { backoffBaseMs: tuning.backoffBaseMs } : {}),
    ...opts.streams,
  };
  const activity = new ActivityTracker();
  const identity = createIdentityStore({ redact });
  const watch = createSessionWatch({
    client,
    config: {
      baseUrl: conn.baseUrl,
      apiKey: conn.apiKey,
      ...(conn.organizationId ? { organizationId: conn.organizationId } : {}),
      ...(conn.organizationId && conn.organizationFrom
        ? { organizationFrom: conn.organizationFrom }
        : {}),
    },
    redact,
    capacity: scrollback,
    ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
    ...(opts.refreshMs !== undefined ? { live: { baseMs: opts.refreshMs } } : {}),
    ...(opts.attention ? { attention: opts.attention } : {}),
    // When the user last looked at each session survives a restart: what completed since
    // is "finished" at the next start, what completed before is not.
    ...(journal
      ? {
          lastSeen: (id: string) => journal.lastSeen(id),
          onSeen: (id: string, at: number) => journal.markSeen(id, at),
        }
      : {}),
    streams: {
      ...(Object.keys(subscribeOptions).length > 0 ? { subscribeOptions } : {}),
      // Never more history than the scrollback holds.
      history: scrollback,
      fetchHistory: (id) => client.sessionHistory(id),
      ...(opts.recordPollMs !== undefined ? { recordPollMs: opts.recordPollMs } : {}),
      // Known scopes without sessions:prompt: no stream that would answer 403.
      liveAllowed: () => {
        const k = identity.getState().keyInfo;
        return k === null || hasScope(k.effective_scopes, REQUIRED_SCOPES.events);
      },
      ...(journal ? { journal } : {}),
      onItem: (id, event, data, at) => activity.note(id, event, data, at),
    },
  });
  const { sessions, streams, controller, live, approvals } = watch;
  const leases = new StreamLeases(controller);
  const rateLimit = createRateLimitStore(client.rateLimit);
  const actions = createActionsStore({ redact });
  // After a git action the list (branch, state) is read again at once.
  const offActions = actions.subscribe((s, prev) => {
    if (s.last !== prev.last && s.last !== null) live.poke("git");
  });
  // Prompts and decisions go into the journal with their time (never the key).
  const act = createActStore({
    api: client,
    book: approvals,
    ...(journal
      ? {
          record: (id: string, event: string, data: Record<string, unknown>) =>
            journal.record(id, event, JSON.stringify(data), undefined, Date.now()),
        }
      : {}),
    role: () => identity.getState().keyInfo?.role,
  });
  // A reply given while a prompt runs waits here, and goes when that prompt completes.
  const followUps = createFollowUps({
    send: (id, prompt) => act.sendPrompt(id, prompt),
    cancel: (id) => act.cancelPrompt(id),
    promptEnd: async (id, signal) => {
      const end = await firstPromptEnd(client, id, {
        intervalMs: opts.promptEndPollMs ?? 3000,
        signal,
      });
      if (end.kind === "completed") return "completed";
      if (end.kind === "session_ended") return { why: `the session is ${end.state}` };
      return { why: `the prompt before ${end.kind === "error" ? "failed" : "timed out"}` };
    },
    ...(opts.followUpStorage ? { storage: opts.followUpStorage } : {}),
  });
  followUps.start();
  const services: AppServices = {
    act,
    followUps,
    work: client,
    approvals,
    api: client,
    identity,
    sessions,
    streams,
    streamControl: leases,
    actions,
    rateLimit,
    maskedKey: maskKey(conn.apiKey),
    secrets,
    ...(opts.journalStatus ? { journal: opts.journalStatus } : {}),
    attention: watch.attention,
    activity,
    overlaps: createOverlapStore(sessions, activity),
    fleetStreams: new FleetStreams({
      leases,
      ...(opts.fleetStreams !== undefined ? { cap: opts.fleetStreams } : {}),
    }),
    live,
    budget: client.budget,
    integrations: createIntegrationsStore(client, { redact }),
    routes: client.transport.routes,
    terminals: createTerminalPanes(client),
    // Loaded on first use: the emulator is no part of the UI's start-up.
    attachShell: async (sessionId) => {
      const { attachTerminal } = await import("../terminalAttach.js");
      const r = await attachTerminal(client, sessionId, { raw: false, say: () => {} });
      return r.end;
    },
    review: {
      store: createReviewStore(client, { redact }),
      api: client,
      home: opts.home ?? null,
      openUrl: opts.openUrl ?? browserOpener(),
    },
  };
  let disposed: Promise<void> | null = null;
  return {
    services,
    client,
    streams: controller,
    dispose() {
      disposed ??= (async () => {
        stop.abort();
        services.terminals?.closeAll();
        act.close();
        followUps.close();
        offActions();
        services.fleetStreams.releaseAll();
        services.overlaps.dispose();
        services.actions.getState().cancel();
        await watch.dispose();
        await journal?.dispose();
        await opts.followUpStorage?.flushed?.();
        rateLimit.dispose();
        // The client's connections go last, once every stream on them has stopped.
        await client.close();
      })();
      return disposed;
    },
  };
}
