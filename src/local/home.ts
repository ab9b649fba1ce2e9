import { sanitizeLine } from "../text/sanitize.js";
import {
  type ApplyOutcome,
  applyPatch,
  type CheckoutOutcome,
  checkoutBranch,
  LocalGitError,
  localRepo,
} from "./localGit.js";
import { openUrl } from "./openUrl.js";

/**
 * Taking a session's changes home, said the same way by the headless `apply` and `checkout`
 * and by the UI: each outcome as lines (the first the summary, the others the files that
 * conflict) with a hint when it did not work. Paths come from the session's patch: every line
 * is sanitized here.
 */

export interface HomeOutcome {
  ok: boolean;
  /** The summary first; then one line per conflicting file. */
  lines: string[];
  /** What to do when it did not work. */
  hint?: string;
  /** The patch did not apply (nothing was changed): `apply` exits 11. */
  conflict?: boolean;
}

const list = (files: readonly string[], max = 20) =>
  files.slice(0, max).map(sanitizeLine).join(", ") +
  (files.length > max ? `, … ${files.length - max} more` : "");

function where(repo: { root: string; branch: string | null }): string {
  return `${sanitizeLine(repo.root)}${repo.branch ? ` (${sanitizeLine(repo.branch)})` : ""}`;
}

/** An apply outcome in words. */
export function describeApply(
  r: ApplyOutcome,
  sessionId: string,
  threeWayAsked = false,
): HomeOutcome {
  const how = (threeWay: boolean) => (threeWay ? " with a three-way merge" : "");
  switch (r.kind) {
    case "empty":
      return { ok: true, lines: [`${sessionId} has no changes: nothing to apply`] };
    case "already-applied":
      return {
        ok: true,
        lines: [`already applied: ${where(r.repo)} has ${sessionId}'s changes (${list(r.files)})`],
      };
    case "would-apply":
      return {
        ok: true,
        lines: [
          `${sessionId}'s changes apply to ${where(r.repo)}${how(r.threeWay)}: ${list(r.files)} (nothing changed: --check)`,
        ],
      };
    case "applied":
      return {
        ok: true,
        lines: [
          `applied ${sessionId}'s changes to ${where(r.repo)}${how(r.threeWay)}: ${list(r.files)}`,
        ],
      };
    case "conflict": {
      const n = r.conflicts.length;
      const what =
        n === 0
          ? "git refused them"
          : `${n} file${n === 1 ? "" : "s"} conflict${n === 1 ? "s" : ""}`;
      return {
        ok: false,
        conflict: true,
        lines: [
          `${sessionId}'s changes do not apply to ${where(r.repo)}: ${what}; nothing was changed`,
          ...r.conflicts.map((c) => `conflict: ${sanitizeLine(c.path)}: ${sanitizeLine(c.reason)}`),
        ],
        hint: threeWayAsked
          ? `Take the session's branch instead (agent-sessions checkout ${sessionId}) and merge it yourself.`
          : `Try a three-way merge (agent-sessions apply ${sessionId} --3way), or take the session's branch (agent-sessions checkout ${sessionId}).`,
      };
    }
  }
}

/** A checkout outcome in words. */
export function describeCheckout(r: CheckoutOutcome): HomeOutcome {
  const b = sanitizeLine(r.branch);
  const remote = sanitizeLine(r.remote);
  const what =
    r.kind === "created"
      ? `created local branch ${b} from ${remote}`
      : r.kind === "updated"
        ? `fast-forwarded local branch ${b} from ${remote}`
        : `local branch ${b} is already at ${remote}'s`;
  const lines = [`${what} (${r.commit.slice(0, 12)})${r.switched ? ", checked out" : ""}`];
  if (!r.switched) {
    lines.push(
      r.dirty
        ? `your working tree has uncommitted changes: switch when ready (git switch ${b})`
        : `git could not switch to it here: git switch ${b} says why`,
    );
  }
  return { ok: true, lines };
}

/** A local git refusal in words (anything else is thrown on). */
export function describeRefusal(e: unknown): HomeOutcome {
  if (!(e instanceof LocalGitError)) throw e;
  return { ok: false, lines: [sanitizeLine(e.message)], hint: e.hint };
}

/**
 * The checkout the UI runs in, as the UI's services take it: where it is, apply a session's
 * patch, take the branch a session pushed. `repoOf` gives a session's repository (owner/repo)
 * so the remote pointing at it is used.
 */
export function createLocalHome(
  cwd: string,
  repoOf: (sessionId: string) => string | null = () => null,
) {
  return {
    async where(): Promise<{ root: string; branch: string | null } | { error: string }> {
      try {
        return await localRepo(cwd);
      } catch (e) {
        return { error: describeRefusal(e).lines[0] ?? "no git checkout here" };
      }
    },
    async apply(patch: string, sessionId = "the session"): Promise<HomeOutcome> {
      return applyPatch(patch, { cwd }).then((r) => describeApply(r, sessionId), describeRefusal);
    },
    async checkout(sessionId: string, branch: string | null): Promise<HomeOutcome> {
      if (branch === null) {
        return {
          ok: false,
          lines: [`${sessionId} names no branch it pushed`],
          hint: `Push its work first (agent-sessions git push ${sessionId}).`,
        };
      }
      return checkoutBranch({ cwd, branch, repo: repoOf(sessionId) }).then(
        describeCheckout,
        describeRefusal,
      );
    },
  };
}

/** The browser opener as the UI's services take it: opened, or why not (the URL is shown). */
export function browserOpener(): (url: string) => Promise<{ opened: boolean; error?: string }> {
  return async (url) => {
    const r = await openUrl(url);
    if (r.kind === "opened") return { opened: true };
    if (r.kind === "refused") return { opened: false, error: `not opened: ${r.reason}` };
    return { opened: false, error: "no browser opener (xdg-open or open) here" };
  };
}
