import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiClient } from "../client/apiClient.js";
import type { ApiKeyInfo, Identity } from "../protocol/resources.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { type ErrorInfo, toErrorInfo } from "./errorInfo.js";
import { sanitizeRecord } from "./sanitizeRecord.js";

/** Who the key belongs to: key verification and the identity lookup, fetched together. */
export interface IdentityState {
  readonly keyInfo: ApiKeyInfo | null;
  readonly identity: Identity | null;
  readonly loading: boolean;
  /** Verification failed: the key itself is the problem (or the service is unreachable). */
  readonly error: ErrorInfo | null;
  /** Only the identity lookup failed; key details may still be shown. */
  readonly identityError: ErrorInfo | null;
  readonly loadedAt: number | null;
  load(client: Pick<ApiClient, "verify" | "me">): Promise<void>;
  reset(): void;
}

export type IdentityStore = StoreApi<IdentityState>;

/** Before any load, and after a reset. */
const NOTHING_KNOWN = {
  keyInfo: null,
  identity: null,
  loading: false,
  error: null,
  identityError: null,
  loadedAt: null,
} as const;

export function createIdentityStore(
  opts: { now?: () => number; redact?: RedactFn } = {},
): IdentityStore {
  const now = opts.now ?? Date.now;
  const redact = opts.redact ?? noRedaction;
  // A newer load supersedes an older one still in flight.
  let generation = 0;
  return createStore<IdentityState>()((set) => ({
    ...NOTHING_KNOWN,

    async load(client) {
      const gen = ++generation;
      set({ loading: true });
      const [verified, me] = await Promise.allSettled([client.verify(), client.me()]);
      if (gen !== generation) return;
      set({
        keyInfo: verified.status === "fulfilled" ? sanitizeRecord(verified.value, redact) : null,
        identity: me.status === "fulfilled" ? sanitizeRecord(me.value, redact) : null,
        error: verified.status === "rejected" ? toErrorInfo(verified.reason, redact) : null,
        identityError: me.status === "rejected" ? toErrorInfo(me.reason, redact) : null,
        loading: false,
        loadedAt: now(),
      });
    },

    reset() {
      generation++;
      set(NOTHING_KNOWN);
    },
  }));
}
