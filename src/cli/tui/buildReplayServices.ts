import { RateLimitTracker } from "../../client/rateLimit.js";
import { RequestBudget } from "../../client/requestBudget.js";
import type { ApiKeyInfo, Identity, Session } from "../../protocol/resources.js";
import { createActionsStore } from "../../store/actionsStore.js";
import { createAttentionStore } from "../../store/attention/attentionStore.js";
import { ActivityTracker } from "../../store/fleet/activity.js";
import { FleetStreams } from "../../store/fleet/fleetStreams.js";
import { createOverlapStore } from "../../store/fleet/overlaps.js";
import type { Recording } from "../../store/history/recording.js";
import { createIdentityStore } from "../../store/identityStore.js";
import { createRateLimitStore } from "../../store/rateLimitStore.js";
import { createReplayStore, type ReplayStore } from "../../store/replay/replayEngine.js";
import type { ReplaySpeed } from "../../store/replay/replaySpeed.js";
import { createSessionsStore } from "../../store/sessionsStore.js";
import { StreamLeases } from "../../store/streams/streamLeases.js";
import { createStreamsStore } from "../../store/streams/streamsStore.js";
import type { AppServices } from "../../ui/model/services.js";

/**
 * The UI's services for a replay: the same stores as a live run, fed by the recording instead
 * of the network. No key, no request: the "service" answers from the recording, and git
 * actions are refused (the replay key has no scopes, so the UI shows them disabled).
 */

export interface ReplayHandle {
  services: AppServices;
  replay: ReplayStore;
  dispose(): Promise<void>;
}

export interface ReplayServiceOptions {
  scrollback?: number;
  speed?: ReplaySpeed;
  at?: number;
  playing?: boolean;
}

const REPLAY_KEY: ApiKeyInfo = {
  valid: true,
  key_id: "replay",
  name: "replay (no key)",
  user_id: "replay",
  organization_id: null,
  tenant_id: null,
  role: null,
  scopes: [],
  effective_scopes: [],
  expires_at: null,
};

const REPLAY_IDENTITY: Identity = { tenant_id: "replay", principal_id: "replay", scopes: [] };

function noService(): Promise<never> {
  return Promise.reject(
    new Error("a replay sends nothing anywhere: git actions need a live service"),
  );
}

/** One record per session of the recording, as a list would show it at the replay's moment. */
function recordsOf(recording: Recording, replay: ReplayStore): Session[] {
  return recording.sessions.map((id) => {
    const mine = recording.events.filter((e) => e.sessionId === id);
    const state = replay.stateAt(id);
    return {
      session_id: id,
      ...(state !== undefined ? { state } : {}),
      title: `recorded: ${mine.length} event${mine.length === 1 ? "" : "s"}`,
      created_at: new Date(mine[0]?.at ?? recording.start).toISOString(),
      updated_at: new Date(mine.at(-1)?.at ?? recording.end).toISOString(),
    };
  });
}

export function buildReplayServices(
  recording: Recording,
  opts: ReplayServiceOptions = {},
): ReplayHandle {
  // The store's clock is the replay's position (for a deterministic frame at any moment).
  let clock = () => recording.start;
  const streams = createStreamsStore({ capacity: opts.scrollback ?? 5000, now: () => clock() });
  let replayRef: ReplayStore | null = null;
  const records = () => (replayRef ? recordsOf(recording, replayRef) : []);
  const sessions = createSessionsStore(
    {
      listSessions: async () => {
        const sessions = records();
        return { sessions, total: sessions.length, hasMore: false, next: null };
      },
      getSession: async (id: string) => {
        const r = records().find((s) => s.session_id === id);
        if (!r) throw new Error(`session ${id} is not in the recording`);
        return r;
      },
      // Every session of the recording is shown, as it was recorded.
    },
    { includeDestroyed: true },
  );
  const replay = createReplayStore(recording, streams, {
    sessions,
    ...(opts.speed !== undefined ? { speed: opts.speed } : {}),
    ...(opts.at !== undefined ? { at: opts.at } : {}),
    ...(opts.playing !== undefined ? { playing: opts.playing } : {}),
  });
  clock = replay.now;
  replayRef = replay;
  const rateLimit = createRateLimitStore(new RateLimitTracker());
  // Panes and the fleet share the replay's streams; nothing is sent, so nothing is paced: a
  // budget no replay can empty, and no live list (the recording is the list).
  const leases = new StreamLeases(replay);
  const activity = new ActivityTracker();
  const budget = new RequestBudget({
    defaults: { limit: Number.MAX_SAFE_INTEGER, burst: Number.MAX_SAFE_INTEGER, windowMs: 60_000 },
  });
  const services: AppServices = {
    api: {
      verify: async () => REPLAY_KEY,
      me: async () => REPLAY_IDENTITY,
      git: noService,
    },
    identity: createIdentityStore({ now: replay.now }),
    sessions,
    streams,
    streamControl: leases,
    actions: createActionsStore(),
    rateLimit,
    maskedKey: "none",
    replay,
    attention: createAttentionStore({ sessions, streams, now: replay.now }),
    activity,
    overlaps: createOverlapStore(sessions, activity),
    fleetStreams: new FleetStreams({ leases }),
    live: null,
    budget,
  };
  let disposed: Promise<void> | null = null;
  return {
    services,
    replay,
    dispose() {
      disposed ??= (async () => {
        services.fleetStreams.releaseAll();
        services.attention.dispose();
        services.overlaps.dispose();
        replay.dispose();
        streams.getState().dispose();
        rateLimit.dispose();
      })();
      return disposed;
    },
  };
}
