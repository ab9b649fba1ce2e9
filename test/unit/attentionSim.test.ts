import { describe, expect, it } from "vitest";
import type { Session } from "../../src/protocol/resources.js";
import {
  type ApprovalBook,
  approvalResolved,
  autoPaused,
  maybeAskApproval,
  promptEnded,
} from "../../src/server/attentionSim.js";
import { createRandom, type Random } from "../../src/server/random.js";
import type { SessionRecord } from "../../src/server/sessionTable.js";
import { recordCauses } from "../../src/store/attention/reasons.js";

/**
 * The reference service's simulated causes, in the documented record fields, read by the
 * client's one decision (reasons.ts): each one queues with the reason the client names.
 */

function record(): SessionRecord {
  return {
    id: "ses_simtest1",
    name: "Sim",
    state: "active",
    agent: "claude-code",
    template_id: null,
    sandbox_url: "https://x.invalid",
    visibility: "team",
    user_id: "usr_1",
    organization_id: null,
    created_at: "2026-10-01T10:00:00.000Z",
    updated_at: "2026-10-01T10:00:00.000Z",
    repo: null,
    branch: null,
    event_count: 0,
    cloned: false,
    github_repo: null,
    last_prompt: null,
    last_activity_at: "2026-10-01T10:00:00.000Z",
    error_message: null,
    paused_at: null,
    prompt_count: 0,
    total_cost_usd: 0,
    preview_url: null,
    template: null,
    agent_status: "idle",
  };
}

/** A Random whose next() gives the values listed, then 0.5. */
function drawing(...values: number[]): Random {
  const base = createRandom(1);
  return { ...base, next: () => values.shift() ?? 0.5, int: () => 0 };
}

const copy = (r: SessionRecord) => JSON.parse(JSON.stringify(r)) as Session;
const T = Date.parse("2026-10-01T11:00:00Z");

describe("simulated attention causes", () => {
  it("a prompt that completes is a finish; one that fails or times out is a failure with its message", () => {
    for (const [draw, want, detail] of [
      [0.9, "finished", "ready for review"],
      [0.01, "failed", "npm test exited with code 1 (3 failing tests)"],
      [0.07, "failed", "The prompt timed out after 30 minutes"],
    ] as const) {
      const r = record();
      r.last_prompt = {
        status: "running",
        started_at: new Date(T).toISOString(),
        completed_at: null,
      };
      const before = copy(r);
      const ev = promptEnded(r, drawing(draw), T + 60_000);
      const causes = recordCauses(copy(r), before);
      expect(causes.map((c) => [c.reason, c.detail])).toEqual([[want, detail]]);
      expect(causes[0]?.since).toBe(T + 60_000);
      expect(JSON.parse(ev.data).type).toBe(want === "finished" ? "done" : "error");
    }
  });

  it("an approval asked is awaiting_approval with an entry in the approvals book; resolved, the cause goes", () => {
    const r = record();
    const asked: { sessionId: string; kind: string; message: string }[] = [];
    const book: ApprovalBook = {
      addApproval: (sessionId, a) => asked.push({ sessionId, kind: a.kind, message: a.message }),
      approveAllPending: () => 0,
    };
    expect(maybeAskApproval(r, drawing(0.01), T, book)).toBe(true);
    expect(recordCauses(copy(r), null).map((c) => c.reason)).toEqual(["approval"]);
    expect(asked).toEqual([
      {
        sessionId: r.id,
        kind: "deploy",
        message: "Deploy the updated landing page to production?",
      },
    ]);
    approvalResolved(r, T + 5000);
    expect(recordCauses(copy(r), null)).toEqual([]);
  });

  it("an idle auto-pause carries paused_at", () => {
    const r = record();
    autoPaused(r, T);
    r.state = "paused";
    expect(recordCauses(copy(r), null)).toMatchObject([{ reason: "paused", since: T }]);
  });
});
