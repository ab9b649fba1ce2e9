import {
  CONFIGURING_ROLES,
  type LinearUpdate,
  linearUpdateProblem,
} from "../protocol/integrations.js";
import type { KeyRecord, KeyRing } from "./keys.js";

/**
 * The reference service's integrations, in the shapes the real service documents
 * (docs/cloud-api/integrations/): one organization installation of the code hosting app that
 * reaches the demo repositories, a personal one (the owner's) that reaches none, the user
 * token connected for every key but the member's, an issue tracker with an hourly launch limit
 * an admin or owner may change, and a chat tool whose service account has one health issue.
 */

const CREATED_AT = "2026-01-05T09:00:00Z";

export interface DemoInstallation {
  id: string;
  installation_id: number;
  account_type: "Organization" | "User";
  account_login: string;
  avatar_url: string;
  created_at: string;
  configure_url: string;
  is_personal: boolean;
}

export interface DemoRepo {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  description: string;
  default_branch: string;
  html_url: string;
  language: string;
}

interface LinearConfig {
  rate_limit_per_hour: number;
  default_github_repo: string | null;
}

export class IntegrationDemo {
  readonly #org: DemoInstallation;
  readonly #personal: DemoInstallation;
  readonly #orgRepos: DemoRepo[];
  readonly #ownerUserId: string | null;
  readonly #linear: LinearConfig = { rate_limit_per_hour: 15, default_github_repo: "demo/app" };

  constructor(keys: KeyRing, repositories: readonly string[]) {
    this.#ownerUserId = keys.records.find((r) => r.name === "owner")?.userId ?? null;
    this.#org = {
      id: "inst_demo_org",
      installation_id: 41000001,
      account_type: "Organization",
      account_login: "demo",
      avatar_url: "https://avatars.example/u/41000001",
      created_at: CREATED_AT,
      configure_url: "https://github.com/organizations/demo/settings/installations/41000001",
      is_personal: false,
    };
    this.#personal = {
      id: "inst_demo_personal",
      installation_id: 41000002,
      account_type: "User",
      account_login: "demo-owner",
      avatar_url: "https://avatars.example/u/41000002",
      created_at: CREATED_AT,
      configure_url: "https://github.com/settings/installations/41000002",
      is_personal: true,
    };
    this.#orgRepos = repositories.map((full, i) => ({
      id: 900001 + i,
      name: full.split("/")[1] ?? full,
      full_name: full,
      private: true,
      description: `The demo repository ${full}`,
      default_branch: "main",
      html_url: `https://github.com/${full}`,
      language: "TypeScript",
    }));
  }

  /** The installations a key sees: the organization's (for an organization key) and its user's own. */
  installations(key: KeyRecord): DemoInstallation[] {
    const out: DemoInstallation[] = [];
    if (key.organizationId !== null) out.push(this.#org);
    if (key.userId === this.#ownerUserId) out.push(this.#personal);
    return out;
  }

  reposOf(inst: DemoInstallation): DemoRepo[] {
    return inst.id === this.#org.id ? this.#orgRepos : [];
  }

  /** GET /api/github-app/installations. */
  installationsBody(key: KeyRecord) {
    const installations = this.installations(key);
    return { installations, total: installations.length };
  }

  /** GET /api/github-app/repos?per_page=N. */
  reposBody(key: KeyRecord, perPage: number) {
    return {
      installations: this.installations(key).map((installation) => {
        const repos = this.reposOf(installation);
        return { installation, repos: repos.slice(0, perPage), total_count: repos.length };
      }),
    };
  }

  /** GET /api/github-app/installations/{id}/repos?page=&per_page=; null for an unknown id. */
  installationReposBody(key: KeyRecord, id: string, page: number, perPage: number) {
    const inst = this.installations(key).find((i) => i.id === id);
    if (!inst) return null;
    const repos = this.reposOf(inst);
    const from = (page - 1) * perPage;
    return {
      repos: repos.slice(from, from + perPage),
      total_count: repos.length,
      page,
      per_page: perPage,
      has_next: from + perPage < repos.length,
    };
  }

  /** GET /api/github-app/user-token-status: the member's token is disconnected. */
  userTokenBody(key: KeyRecord) {
    const hasInstallation = this.installations(key).length > 0;
    if (key.name === "member") return { connected: false, has_installation: hasInstallation };
    return {
      connected: true,
      username: `demo-${key.name}`,
      scopes: "repo,read:user,read:org",
      has_installation: hasInstallation,
    };
  }

  #linearRecord() {
    return {
      id: "li_demo",
      connection_type: "oauth",
      name: "Demo Bot",
      workspace_name: "Demo",
      actor_name: "Demo Bot",
      service_user_id: this.#ownerUserId,
      default_github_repo: this.#linear.default_github_repo,
      default_template: null,
      default_agent: "claude-code",
      rate_limit_per_hour: this.#linear.rate_limit_per_hour,
      enabled: true,
      webhook_active: true,
      bot_linear_user_id: "lin_usr_demo",
      project_repo_map: null,
      config: null,
    };
  }

  /** GET /api/v1/linear/integrations: null for a key without an organization (not set up). */
  linearListBody(key: KeyRecord) {
    if (key.organizationId === null) return null;
    return { integrations: [this.#linearRecord()] };
  }

  /**
   * POST /api/v1/linear/integration: why it is refused (status and detail), or the answer.
   * Role first (the documented "Requires org admin role"), then the values.
   */
  updateLinear(
    key: KeyRecord,
    body: unknown,
  ):
    | { ok: true; body: Record<string, unknown> }
    | { ok: false; status: number; detail: string; field?: string } {
    if (key.organizationId === null) {
      return { ok: false, status: 404, detail: "Linear integration not found" };
    }
    if (key.role === null || !CONFIGURING_ROLES.includes(key.role)) {
      return {
        ok: false,
        status: 403,
        detail: `Requires org admin role (this key's owner is ${key.role ?? "not in the organization"})`,
      };
    }
    const o = (body ?? {}) as Record<string, unknown>;
    const update: LinearUpdate = {};
    if (o.rate_limit_per_hour !== undefined) {
      update.rate_limit_per_hour =
        typeof o.rate_limit_per_hour === "number" ? o.rate_limit_per_hour : Number.NaN;
    }
    if (o.default_github_repo !== undefined) {
      if (typeof o.default_github_repo !== "string") {
        return {
          ok: false,
          status: 422,
          detail: "default_github_repo must be a string",
          field: "default_github_repo",
        };
      }
      update.default_github_repo = o.default_github_repo;
    }
    const problem = linearUpdateProblem(update);
    if (problem) return { ok: false, status: 422, detail: problem.message, field: problem.field };
    if (update.rate_limit_per_hour !== undefined) {
      this.#linear.rate_limit_per_hour = update.rate_limit_per_hour;
    }
    if (update.default_github_repo !== undefined) {
      this.#linear.default_github_repo =
        update.default_github_repo === "" ? null : update.default_github_repo;
    }
    const r = this.#linearRecord();
    return {
      ok: true,
      body: {
        connected: true,
        workspace_name: r.workspace_name,
        actor_name: r.actor_name,
        service_user_id: r.service_user_id,
        default_github_repo: r.default_github_repo,
        default_template: null,
        default_agent: r.default_agent,
        rate_limit_per_hour: r.rate_limit_per_hour,
        enabled: true,
        webhook_active: true,
        bot_linear_user_id: r.bot_linear_user_id,
        project_repo_map: null,
      },
    };
  }

  /** GET /api/v1/slack/integration: null for a key without an organization (not set up). */
  slackBody(key: KeyRecord) {
    if (key.organizationId === null) return null;
    return {
      connected: true,
      connection_type: "oauth",
      managed_app_available: true,
      team_name: "Demo Org",
      bot_user_id: "U0DEMO",
      service_user_id: this.#ownerUserId,
      service_user_name: "demo-owner",
      default_template: null,
      default_github_repo: "demo/app",
      default_agent: "claude-code",
      rate_limit_per_hour: 30,
      enabled: true,
      interactivity_confirmed: true,
      channel_repo_map: {},
      service_account_health: {
        healthy: false,
        issues: ["The service account demo-owner is not a member of the channel #agents"],
      },
    };
  }
}
