import type { Command } from "commander";
import { EXIT } from "../../client/errors.js";
import { applyPatch, checkoutBranch, LocalGitError } from "../../local/localGit.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { err, out } from "../output.js";
import { ReviewError, sessionPatch, withClient } from "./review.js";

/**
 * Taking a session's work home (src/local/localGit.ts decides; the UI uses the same): `apply`
 * its patch to the git checkout here, `checkout` the branch it pushed.
 */

/** A local git refusal as this command's error: its words and what to do. */
function local(e: unknown): unknown {
  return e instanceof LocalGitError ? new ReviewError(e.message, e.hint) : e;
}

const list = (files: readonly string[], max = 20) =>
  files.slice(0, max).map(sanitizeLine).join(", ") +
  (files.length > max ? `, … ${files.length - max} more` : "");

export async function runApply(
  cmd: Command,
  id: string,
  opts: { check: boolean; threeWay: boolean },
): Promise<void> {
  await withClient(cmd, id, async (client) => {
    const patch = await sessionPatch(client, id);
    const r = await applyPatch(patch, { cwd: process.cwd(), ...opts }).catch((e: unknown) => {
      throw local(e);
    });
    const where = `${sanitizeLine(r.repo.root)}${r.repo.branch ? ` (${sanitizeLine(r.repo.branch)})` : ""}`;
    switch (r.kind) {
      case "empty":
        out(`${id} has no changes: nothing to apply`);
        return;
      case "already-applied":
        out(`already applied: ${where} has ${id}'s changes (${list(r.files)})`);
        return;
      case "would-apply":
        out(
          `${id}'s changes apply to ${where}${r.threeWay ? " with a three-way merge" : ""}: ${list(r.files)} (nothing changed: --check)`,
        );
        return;
      case "applied":
        out(
          `applied ${id}'s changes to ${where}${r.threeWay ? " with a three-way merge" : ""}: ${list(r.files)}`,
        );
        return;
      case "conflict": {
        for (const c of r.conflicts)
          err(`conflict: ${sanitizeLine(c.path)}: ${sanitizeLine(c.reason)}`);
        const n = r.conflicts.length;
        throw new ReviewError(
          `${id}'s changes do not apply to ${where}: ${n === 0 ? "git refused them" : `${n} file${n === 1 ? "" : "s"} conflict${n === 1 ? "s" : ""}`}; nothing was changed`,
          opts.threeWay
            ? `Take the session's branch instead (agent-sessions checkout ${id}) and merge it yourself.`
            : `Try a three-way merge (agent-sessions apply ${id} --3way), or take the session's branch (agent-sessions checkout ${id}).`,
          EXIT.applyConflict,
        );
      }
    }
  });
}

/** The branch a record names (the documents leave it open: several names are read). */
export function recordBranch(record: Record<string, unknown>): string | null {
  for (const k of ["branch", "git_branch", "current_branch", "head_branch"]) {
    const v = record[k];
    if (typeof v === "string" && v !== "") return v;
  }
  return null;
}

export async function runCheckout(
  cmd: Command,
  id: string,
  branchArg: string | null,
): Promise<void> {
  await withClient(cmd, id, async (client) => {
    const record = (await client.getSession(id)) as Record<string, unknown>;
    const branch = branchArg ?? recordBranch(record);
    if (branch === null) {
      throw new ReviewError(
        `${id} names no branch it pushed`,
        `Push its work first (agent-sessions git push ${id}), or name the branch: agent-sessions checkout ${id} --branch NAME`,
      );
    }
    const repo = typeof record.github_repo === "string" ? record.github_repo : null;
    const r = await checkoutBranch({ cwd: process.cwd(), branch, repo }).catch((e: unknown) => {
      throw local(e);
    });
    const b = sanitizeLine(branch);
    const what =
      r.kind === "created"
        ? `created local branch ${b} from ${sanitizeLine(r.remote)}`
        : r.kind === "updated"
          ? `fast-forwarded local branch ${b} from ${sanitizeLine(r.remote)}`
          : `local branch ${b} is already at ${sanitizeLine(r.remote)}'s`;
    out(`${what} (${r.commit.slice(0, 12)})${r.switched ? ", checked out" : ""}`);
    if (!r.switched)
      err(`your working tree has uncommitted changes: switch when ready (git switch ${b})`);
  });
}
