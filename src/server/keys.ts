import {
  type ApiKeyInfo,
  effectiveScopes,
  type Identity,
  MODERN_SCOPES,
  type Role,
} from "../protocol/index.js";
import type { Random } from "./random.js";

/** A key as the service stores it. `role` is the owner's CURRENT role, not the one at creation. */
export interface KeyRecord {
  /** Short name of the demo key (owner, admin, …). */
  name: string;
  key: string;
  keyId: string;
  displayName: string;
  userId: string;
  organizationId: string | null;
  /** Display name of the organization (null for personal keys). */
  organizationName: string | null;
  email: string;
  role: Role | null;
  scopes: string[];
  expiresAt: Date | null;
  demonstrates: string;
}

export type AuthResult =
  | { ok: true; record: KeyRecord; effective: string[] }
  | { ok: false; reason: "missing" | "invalid" | "expired"; message: string };

const MEMBER_SCOPES = ["sessions:read", "sessions:write", "sessions:prompt", "integrations:read"];
const DAY_MS = 24 * 60 * 60 * 1000;

interface DemoKeySpec {
  name: string;
  role: Role | null;
  scopes: string[];
  expiresInMs: number | null;
  demonstrates: string;
}

const DEMO_KEY_SPECS: readonly DemoKeySpec[] = [
  {
    name: "owner",
    role: "owner",
    scopes: [...MODERN_SCOPES],
    expiresInMs: null,
    demonstrates: "organization owner: every scope",
  },
  {
    name: "admin",
    role: "admin",
    scopes: [...MODERN_SCOPES],
    expiresInMs: null,
    demonstrates: "organization admin: every scope, configures integrations",
  },
  {
    name: "member",
    role: "member",
    scopes: [...MEMBER_SCOPES],
    expiresInMs: null,
    demonstrates:
      "organization member: sessions, reads integrations (its code hosting token is disconnected)",
  },
  {
    name: "personal",
    role: null,
    scopes: ["sessions:read", "sessions:write", "sessions:prompt", "sessions:terminal"],
    expiresInMs: null,
    demonstrates: "personal key: no organization, tenant_id = user_id",
  },
  {
    name: "expired",
    role: "member",
    scopes: [...MEMBER_SCOPES],
    expiresInMs: -DAY_MS,
    demonstrates: "expired yesterday: refused with 401",
  },
  {
    name: "demoted",
    role: "member",
    scopes: [...MODERN_SCOPES],
    expiresInMs: null,
    demonstrates: "owner demoted to member: effective scopes narrower than stored",
  },
  {
    name: "legacy",
    role: "admin",
    scopes: ["read", "deploy"],
    expiresInMs: null,
    demonstrates: "legacy scope names (read, deploy) expanded",
  },
  {
    name: "readonly",
    role: "member",
    scopes: ["sessions:read", "sessions:prompt"],
    expiresInMs: null,
    demonstrates: "watch only: git answers 403 naming sessions:write",
  },
  {
    name: "expiring",
    role: "member",
    scopes: [...MEMBER_SCOPES],
    expiresInMs: 3 * DAY_MS,
    demonstrates: "expires in 3 days: clients warn",
  },
  {
    name: "listonly",
    role: "member",
    scopes: ["sessions:read"],
    expiresInMs: null,
    demonstrates: "lists sessions only: the event stream answers 403",
  },
];

export const KEY_PREFIX = "ask_";
const KEY_BODY_LENGTH = 40;

/** The demo keys of one service run. */
export const DEMO_ORG_NAME = "Demo Org";

export class KeyRing {
  readonly records: readonly KeyRecord[];
  /** The demo organization every key but the personal one belongs to. */
  readonly organizationId: string;
  private readonly byKey = new Map<string, KeyRecord>();

  constructor(rand: Random, now: number) {
    const orgId = `org_${rand.base62(10)}`;
    this.organizationId = orgId;
    this.records = DEMO_KEY_SPECS.map((spec) => {
      const userId = `usr_${rand.base62(10)}`;
      return {
        name: spec.name,
        key: KEY_PREFIX + rand.base62(KEY_BODY_LENGTH),
        keyId: rand.uuid(),
        displayName: `demo-${spec.name}`,
        userId,
        organizationId: spec.role === null ? null : orgId,
        organizationName: spec.role === null ? null : DEMO_ORG_NAME,
        email: `${spec.name}@demo.example`,
        role: spec.role,
        scopes: [...spec.scopes],
        expiresAt: spec.expiresInMs === null ? null : new Date(now + spec.expiresInMs),
        demonstrates: spec.demonstrates,
      };
    });
    for (const r of this.records) this.byKey.set(r.key, r);
  }

  /** The record a bearer token names, even if expired (rate limiting is per key either way). */
  lookup(token: string | null): KeyRecord | null {
    if (token === null) return null;
    return this.byKey.get(token) ?? null;
  }

  authenticate(token: string | null, now: number): AuthResult {
    if (token === null) {
      return {
        ok: false,
        reason: "missing",
        message: "Invalid API key: send it as Authorization: Bearer <API_KEY>",
      };
    }
    const record = this.byKey.get(token);
    if (!record) return { ok: false, reason: "invalid", message: "Invalid API key" };
    if (record.expiresAt !== null && record.expiresAt.getTime() <= now) {
      return {
        ok: false,
        reason: "expired",
        message: `API key expired at ${record.expiresAt.toISOString()}`,
      };
    }
    return { ok: true, record, effective: effectiveScopes(record.scopes, record.role) };
  }
}

/** Bearer token of an Authorization header, or null when absent or not a bearer. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m?.[1] ?? null;
}

export function tenantOf(r: KeyRecord): string {
  return r.organizationId ?? r.userId;
}

export function verifyBody(r: KeyRecord): ApiKeyInfo {
  return {
    valid: true,
    key_id: r.keyId,
    name: r.displayName,
    user_id: r.userId,
    organization_id: r.organizationId,
    tenant_id: tenantOf(r),
    role: r.role,
    scopes: [...r.scopes],
    effective_scopes: effectiveScopes(r.scopes, r.role),
    expires_at: r.expiresAt === null ? null : r.expiresAt.toISOString(),
  };
}

/** GET /api/v1/me: the interface's three fields and the documented email, org_name, api_key_name. */
export function identityBody(r: KeyRecord): Identity {
  return {
    tenant_id: tenantOf(r),
    principal_id: r.userId,
    scopes: [...r.scopes],
    email: r.email,
    org_name: r.organizationName,
    api_key_name: r.displayName,
  };
}
