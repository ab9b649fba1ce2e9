import { describe, expect, it } from "vitest";
import { approvalGate } from "../../src/protocol/approvals.js";
import { itemsOfJson, promptProblem, readPromptItem } from "../../src/protocol/prompt.js";

/** How answer items of every documented and legal shape are read, and the role gate. */

describe("prompt answer items", () => {
  it("reads the type from the data, else the event name, else text", () => {
    expect(readPromptItem(undefined, '{"type":"text","content":"hi"}')).toEqual({
      type: "text",
      content: "hi",
    });
    expect(readPromptItem("tool_use", '{"content":"ls"}')).toEqual({
      type: "tool_use",
      content: "ls",
    });
    expect(readPromptItem("message", "plain words")).toEqual({
      type: "text",
      content: "plain words",
    });
    expect(readPromptItem("done", "")).toEqual({ type: "done", content: "" });
    expect(readPromptItem(undefined, '{"type":"tool_result","content":{"exit":0}}')).toEqual({
      type: "tool_result",
      content: '{"exit":0}',
    });
  });

  it("reads a JSON answer of one item (the documented example) or a list", () => {
    expect(itemsOfJson({ type: "text", content: "I'll add validation" })).toEqual([
      { type: "text", content: "I'll add validation" },
    ]);
    expect(itemsOfJson([{ type: "text", content: "a" }, { type: "done" }])).toHaveLength(2);
    expect(itemsOfJson({ status: "already_running" })).toBeNull();
  });

  it("refuses an empty prompt and one over 100,000 characters", () => {
    expect(promptProblem(" \n ")).toBe("the prompt is empty");
    expect(promptProblem("x".repeat(100_000))).toBeNull();
    expect(promptProblem("x".repeat(100_001))).toMatch(/more than the 100,000/);
  });
});

describe("the approval role gate", () => {
  const a = { id: "ap_1", required_role: "admin" };
  it("lets owners and admins, and the required role, decide; says why not otherwise", () => {
    expect(approvalGate(a, "owner")).toBeNull();
    expect(approvalGate(a, "admin")).toBeNull();
    expect(approvalGate(a, "member")).toBe("needs the admin role (yours is member)");
    expect(approvalGate(a, null)).toBe("needs the admin role (a personal key has none)");
    expect(approvalGate({ id: "ap_2", required_role: null }, "member")).toBeNull();
    // A team constraint cannot be checked here: the service decides.
    expect(approvalGate({ ...a, required_team_id: "team_1" }, "member")).toBeNull();
  });
});
