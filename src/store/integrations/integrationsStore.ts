import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiClient } from "../../client/apiClient.js";
import {
  type IntegrationsApi,
  type IntegrationsReport,
  readIntegrations,
} from "../../client/integrations.js";
import type { LinearUpdate } from "../../protocol/integrations.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import { type ErrorInfo, toErrorInfo } from "../errorInfo.js";
import { sanitizeRecord } from "../sanitizeRecord.js";
import { updatedLine } from "./integrationsText.js";

/**
 * What the service can reach, for the UI: read when first needed (the integrations view, the
 * clone dialog, a git failure), kept, read again on demand. Every string in it is sanitized
 * (and stripped of the key) once, as it arrives.
 */
export interface IntegrationsState {
  readonly report: IntegrationsReport | null;
  readonly loading: boolean;
  readonly loadedAt: number | null;
  /** The last change sent (the issue tracker's settings): running, or how it ended. */
  readonly update: { running: boolean; error: ErrorInfo | null; done: string | null };
  /** Read every part again; a second call while one runs waits for it. */
  load(): Promise<IntegrationsReport>;
  /** Read them unless they were read already (or are being read). */
  ensure(): Promise<IntegrationsReport>;
  /** Send a change to the issue tracker, then read the parts again. Never throws. */
  updateIssueTracker(update: LinearUpdate): Promise<boolean>;
}

export type IntegrationsStore = StoreApi<IntegrationsState>;

export type IntegrationsClient = IntegrationsApi & Pick<ApiClient, "updateLinearIntegration">;

export function createIntegrationsStore(
  api: IntegrationsClient,
  opts: { now?: () => number; redact?: RedactFn } = {},
): IntegrationsStore {
  const now = opts.now ?? Date.now;
  const redact = opts.redact ?? noRedaction;
  let inFlight: Promise<IntegrationsReport> | null = null;
  return createStore<IntegrationsState>()((set, get) => ({
    report: null,
    loading: false,
    loadedAt: null,
    update: { running: false, error: null, done: null },

    load() {
      if (inFlight) return inFlight;
      set({ loading: true });
      inFlight = readIntegrations(api).then((raw) => {
        const report = sanitizeRecord(raw, redact);
        set({ report, loading: false, loadedAt: now() });
        inFlight = null;
        return report;
      });
      return inFlight;
    },

    ensure() {
      const { report } = get();
      if (report && !inFlight) return Promise.resolve(report);
      return get().load();
    },

    async updateIssueTracker(update) {
      set({ update: { running: true, error: null, done: null } });
      try {
        const answer = await api.updateLinearIntegration(update);
        set({
          update: {
            running: false,
            error: null,
            done: redact(updatedLine(answer)),
          },
        });
        void get().load();
        return true;
      } catch (e) {
        set({ update: { running: false, error: toErrorInfo(e, redact), done: null } });
        return false;
      }
    },
  }));
}

/** A store with nothing in it and nothing to ask: where there is no service (a replay). */
export const NO_INTEGRATIONS: IntegrationsStore = createStore<IntegrationsState>()(() => ({
  report: null,
  loading: false,
  loadedAt: null,
  update: { running: false, error: null, done: null },
  load: () => Promise.reject(new Error("no service to ask")),
  ensure: () => Promise.reject(new Error("no service to ask")),
  updateIssueTracker: () => Promise.resolve(false),
}));
