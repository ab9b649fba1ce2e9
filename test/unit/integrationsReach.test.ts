import { describe, expect, it } from "vitest";
import type { IntegrationsReport } from "../../src/client/integrations.js";
import {
  repoDefaultBranch,
  repoSuggestions,
  unreachableHint,
} from "../../src/store/integrations/reach.js";
import { describePending } from "../../src/ui/model/gitActions.js";
import { integrationEditUpdate } from "../../src/ui/model/integrations.js";

// The repositories list where git needs it: the default branch a confirmation warns about,
// the clone suggestions, the hint when git fails on a repository no installation reaches.

const inst = (login: string, personal: boolean) => ({
  id: `inst_${login}`,
  account_login: login,
  account_type: personal ? "User" : "Organization",
  is_personal: personal,
  configure_url: `https://github.com/organizations/${login}/settings/installations/1`,
});

function report(repos: { full_name: string; default_branch: string }[]): IntegrationsReport {
  return {
    app: {
      state: "ok",
      data: {
        installations: [
          { installation: inst("me", true), repos: [], total: 0, cut: null },
          { installation: inst("acme", false), repos, total: repos.length, cut: null },
        ],
        reposError: null,
      },
    },
    token: { state: "absent", message: "x" },
    issueTracker: { state: "absent", message: "x" },
    chat: { state: "absent", message: "x" },
  };
}

const r = report([
  { full_name: "acme/api", default_branch: "trunk" },
  { full_name: "acme/web", default_branch: "main" },
  { full_name: "other/apiary", default_branch: "main" },
]);
const session = { session_id: "ses_1", repo: "acme/api" };

describe("the default branch from the repositories list", () => {
  it("a push to the repository's own default branch is warned about, main is not", () => {
    const def = repoDefaultBranch(r, session.repo);
    expect(def).toBe("trunk");
    expect(describePending({ kind: "push", branch: "trunk" }, session, def).warning).toMatch(
      /trunk is the repository's default branch/,
    );
    expect(describePending({ kind: "push", branch: "main" }, session, def).warning).toBeNull();
    // Without the list, main or master stand in.
    expect(describePending({ kind: "push", branch: "main" }, session, null).warning).not.toBeNull();
  });
});

describe("clone suggestions", () => {
  it("filter by what is typed, prefix matches of the name first", () => {
    expect(repoSuggestions(r, "api", 5).map((x) => x.repo.full_name)).toEqual([
      "acme/api",
      "other/apiary",
    ]);
    expect(repoSuggestions(r, "ACME/W", 5).map((x) => x.repo.full_name)).toEqual(["acme/web"]);
    expect(repoSuggestions(r, "", 2)).toHaveLength(2);
    expect(repoSuggestions(null, "", 2)).toEqual([]);
  });
});

describe("a repository no installation reaches", () => {
  it("names the installation of its owner, else the organization's, with its configure URL", () => {
    expect(unreachableHint(r.app, "https://github.com/acme/secret.git")).toMatch(
      /reaches acme\/secret: grant it access at https:\/\/github\.com\/organizations\/acme\//,
    );
    expect(unreachableHint(r.app, "zzz/other")).toMatch(/organizations\/acme\//);
    expect(unreachableHint(r.app, "acme/api")).toBeNull();
    // A cut list cannot tell.
    const cut = report([]);
    if (cut.app.state === "ok") (cut.app.data.installations[1] as { cut: string | null }).cut = "x";
    expect(unreachableHint(cut.app, "acme/secret")).toBeNull();
  });
});

describe("the issue tracker's edit", () => {
  it("refuses a limit outside 1–100 and a repository that is not owner/repo", () => {
    expect(integrationEditUpdate(["0", ""])).toMatchObject({ ok: false });
    expect(integrationEditUpdate(["101", ""])).toMatchObject({ ok: false });
    expect(integrationEditUpdate(["20", "not a repo"])).toMatchObject({ ok: false });
    expect(integrationEditUpdate(["20", "acme/api"])).toEqual({
      ok: true,
      update: { rate_limit_per_hour: 20, default_github_repo: "acme/api" },
    });
  });
});
