import { applyPatch, checkoutBranch, LocalGitError, localRepo } from "../../local/localGit.js";
import { sanitizeLine } from "../../text/sanitize.js";
import type { HomeOutcome, LocalHome } from "../../ui/model/services.js";
import { recordBranch } from "../commands/takeHome.js";

/**
 * Where the UI takes a session's changes home: the git checkout the UI was started in, through
 * the same local git module as `agent-sessions apply` and `checkout` (a preflight first,
 * conflicts named, nothing half-applied; the pushed branch fetched, never over local work).
 */

const list = (files: readonly string[], max = 8) =>
  files.slice(0, max).map(sanitizeLine).join(", ") +
  (files.length > max ? `, … ${files.length - max} more` : "");

function failed(e: unknown): HomeOutcome {
  if (e instanceof LocalGitError) {
    return { ok: false, lines: [sanitizeLine(e.message), sanitizeLine(e.hint)] };
  }
  return { ok: false, lines: [sanitizeLine(e instanceof Error ? e.message : String(e))] };
}

export function localHome(cwd: string = process.cwd()): LocalHome {
  return {
    async where() {
      try {
        const r = await localRepo(cwd);
        return { root: sanitizeLine(r.root), branch: r.branch ? sanitizeLine(r.branch) : null };
      } catch (e) {
        return { error: failed(e).lines.join(" — ") };
      }
    },
    branchOf: (record) => {
      const b = recordBranch(record as Record<string, unknown>);
      return b === null ? null : sanitizeLine(b);
    },
    async apply(patch) {
      try {
        const r = await applyPatch(patch, { cwd });
        const where = sanitizeLine(r.repo.root);
        switch (r.kind) {
          case "empty":
            return { ok: true, lines: ["The session's diff changes nothing: nothing applied"] };
          case "already-applied":
            return {
              ok: true,
              lines: [`Already applied: ${where} has these changes`, list(r.files)],
            };
          case "would-apply":
          case "applied":
            return {
              ok: true,
              lines: [
                `Applied to ${where}${r.threeWay ? " with a three-way merge" : ""}`,
                list(r.files),
              ],
            };
          case "conflict":
            return {
              ok: false,
              lines: [
                `Not applied: ${r.conflicts.length === 0 ? "git refused the patch" : `${r.conflicts.length} file${r.conflicts.length === 1 ? "" : "s"} conflict`} in ${where}; nothing was changed`,
                ...r.conflicts.map(
                  (c) => `conflict: ${sanitizeLine(c.path)}: ${sanitizeLine(c.reason)}`,
                ),
                "Check out the session's branch instead (Tab in the dialog)",
              ],
            };
        }
      } catch (e) {
        return failed(e);
      }
    },
    async checkout(record) {
      const r0 = record as Record<string, unknown>;
      const branch = recordBranch(r0);
      if (branch === null) {
        return {
          ok: false,
          lines: [
            "The session names no branch it pushed",
            "Push its work first (p), then take it home again",
          ],
        };
      }
      try {
        const repo = typeof r0.github_repo === "string" ? r0.github_repo : null;
        const r = await checkoutBranch({ cwd, branch, repo });
        const b = sanitizeLine(branch);
        const what =
          r.kind === "created"
            ? `Created local branch ${b} from ${sanitizeLine(r.remote)}`
            : r.kind === "updated"
              ? `Fast-forwarded local branch ${b} from ${sanitizeLine(r.remote)}`
              : `Local branch ${b} is already at ${sanitizeLine(r.remote)}'s`;
        return {
          ok: true,
          lines: [
            `${what} (${r.commit.slice(0, 12)})${r.switched ? ", checked out" : ""}`,
            ...(r.switched
              ? []
              : [`uncommitted changes here: switch when ready (git switch ${b})`]),
          ],
        };
      } catch (e) {
        return failed(e);
      }
    },
  };
}
