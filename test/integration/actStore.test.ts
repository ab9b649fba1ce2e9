import { describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { actOf, createActStore } from "../../src/store/act/actStore.js";
import { approvalsOf, createApprovalsBook } from "../../src/store/approvals/approvalsBook.js";
import { actLines } from "../../src/ui/model/actLines.js";
import {
  ANNOUNCED_LIMITS,
  type Responder,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";

/**
 * What a pane is given about a prompt's answer from servers of other documented shapes: an
 * answer that drops halfway is said, never silently cut; escape sequences in the answer and
 * in an approval never reach the pane.
 */

function sse(frames: string[], end: boolean): Responder {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", ...ANNOUNCED_LIMITS });
    for (const f of frames) res.write(f);
    if (end) res.end();
    else setTimeout(() => res.socket?.destroy(), 30);
  };
}

const data = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;

describe("a prompt's answer in the pane", () => {
  it("a stream dropped halfway is said; escapes are removed; tools are one line", async () => {
    const s = await startScriptedServer();
    try {
      s.reply(
        sse(
          [
            `event: text\n${data({ type: "text", content: "Working \u001b]0;pwned\u0007on it\u001b[2J\nline two" })}`,
            data({
              type: "tool_use",
              content: { tool: "bash", command: "rm -rf \u001b[31mbuild" },
            }),
          ],
          false,
        ),
      );
      const api = new ApiClient({
        baseUrl: s.url,
        apiKey: "sk_test_0123456789abcdef",
        maxAttempts: 1,
      });
      const book = createApprovalsBook({ api });
      const act = createActStore({ api, book });
      const outcome = await act.sendPrompt("ses_a1", "go");
      expect(outcome?.kind).toBe("cut");
      const lines = actLines({
        act: act.getState().bySession.get("ses_a1") as never,
        approvals: approvalsOf(book.getState(), "ses_a1"),
        editing: null,
        role: "owner",
        writeDisabled: null,
        width: 80,
        maxRows: 20,
      }).map((l) => l.text);
      const text = lines.join("\n");
      expect(text).not.toMatch(/\u001b|\u0007/);
      expect(lines).toContain("  Working on it");
      expect(lines).toContain("  line two");
      expect(lines).toContain("  [tool] bash rm -rf build");
      expect(lines.at(-1)).toMatch(/^ {2}✗ answer cut before it ended: /);
      // Expanded (E), the tool item shows its whole content under its line.
      expect(act.toggleTools("ses_a1")).toBe(true);
      const open = actLines({
        act: act.getState().bySession.get("ses_a1") as never,
        approvals: approvalsOf(book.getState(), "ses_a1"),
        editing: null,
        role: "owner",
        writeDisabled: null,
        width: 80,
        maxRows: 20,
      }).map((l) => l.text);
      expect(open).toContain("      tool: bash");
      expect(open).toContain("      command: rm -rf build");
      act.close();
    } finally {
      await s.close();
    }
  });

  it("an approval's text from the server is sanitized where the pane shows it", async () => {
    const s = await startScriptedServer();
    try {
      s.reply((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", ...ANNOUNCED_LIMITS });
        res.end(
          JSON.stringify([
            {
              id: "ap_1",
              kind: "deploy\u001b[2J",
              message: "Ship\u202e it?\nnow",
              required_role: null,
              status: "pending",
              created_at: "2026-01-01T00:00:00Z",
            },
          ]),
        );
      });
      const api = new ApiClient({
        baseUrl: s.url,
        apiKey: "sk_test_0123456789abcdef",
        maxAttempts: 1,
      });
      const book = createApprovalsBook({ api });
      const act = createActStore({ api, book });
      await book.read("ses_a1");
      const lines = actLines({
        act: actOf(act.getState(), "ses_a1"),
        approvals: approvalsOf(book.getState(), "ses_a1"),
        editing: null,
        role: "member",
        writeDisabled: null,
        width: 100,
        maxRows: 10,
      });
      const text = lines.map((l) => l.text).join("\n");
      expect(text).not.toMatch(/\u001b|\u202e/);
      // The bidi control is spelled out and the line break folded, as everywhere else.
      expect(lines[0]?.text).toBe(
        "⚑ needs you: deploy: Ship<U+202E> it? ⏎ now since 2026-01-01T00:00:00Z",
      );
      act.close();
    } finally {
      await s.close();
    }
  });
});
