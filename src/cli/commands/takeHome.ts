import type { Command } from "commander";
import { EXIT } from "../../client/errors.js";
import {
  describeApply,
  describeCheckout,
  describeRefusal,
  type HomeOutcome,
} from "../../local/home.js";
import { applyPatch, checkoutBranch } from "../../local/localGit.js";
import { err, out } from "../output.js";
import { ReviewError, sessionPatch, withClient } from "./review.js";

/**
 * Taking a session's work home: `apply` its patch to the git checkout here, `checkout` the
 * branch it pushed. src/local decides and words the outcome (home.ts), as it does for the UI.
 */

/** The outcome printed: its summary on stdout, or its lines on stderr and an error. */
function report(o: HomeOutcome): void {
  const [summary = "", ...rest] = o.lines;
  if (o.ok) {
    out(summary);
    for (const line of rest) err(line);
    return;
  }
  for (const line of rest) err(line);
  throw new ReviewError(summary, o.hint ?? "", o.conflict ? EXIT.applyConflict : EXIT.error);
}

export async function runApply(
  cmd: Command,
  id: string,
  opts: { check: boolean; threeWay: boolean },
): Promise<void> {
  await withClient(cmd, id, async (client) => {
    const patch = await sessionPatch(client, id);
    const outcome = await applyPatch(patch, { cwd: process.cwd(), ...opts }).then(
      (r) => describeApply(r, id, opts.threeWay),
      describeRefusal,
    );
    report(outcome);
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
    report(
      await checkoutBranch({ cwd: process.cwd(), branch, repo }).then(
        describeCheckout,
        describeRefusal,
      ),
    );
  });
}
