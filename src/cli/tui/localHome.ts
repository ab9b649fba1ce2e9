import { createLocalHome, type HomeOutcome as LocalOutcome } from "../../local/home.js";
import { sanitizeLine } from "../../text/sanitize.js";
import type { HomeOutcome, LocalHome } from "../../ui/model/services.js";
import { recordBranch } from "../commands/takeHome.js";

/**
 * Where the UI takes a session's changes home: the git checkout the UI was started in,
 * through the local module `agent-sessions apply` and `checkout` use (src/local/home.ts: a
 * preflight first, conflicts named, nothing half-applied; the pushed branch fetched, never
 * over local work; the same words), the branch read from the record as `checkout` reads it.
 */

const lines = (o: LocalOutcome): HomeOutcome => ({
  ok: o.ok,
  lines: o.hint ? [...o.lines, sanitizeLine(o.hint)] : o.lines,
});

export function localHome(cwd: string = process.cwd()): LocalHome {
  const home = createLocalHome(cwd);
  return {
    async where() {
      const w = await home.where();
      return "error" in w
        ? w
        : { root: sanitizeLine(w.root), branch: w.branch ? sanitizeLine(w.branch) : null };
    },
    branchOf: (record) => {
      const b = recordBranch(record as Record<string, unknown>);
      return b === null ? null : sanitizeLine(b);
    },
    apply: (patch, sessionId) => home.apply(patch, sessionId).then(lines),
    checkout(record) {
      const r = record as Record<string, unknown>;
      const repo = typeof r.github_repo === "string" ? r.github_repo : null;
      return createLocalHome(cwd, () => repo)
        .checkout(record.session_id, recordBranch(r))
        .then(lines);
    },
  };
}
