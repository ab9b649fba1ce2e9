import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  HOSTILE_KEY,
  type HostileServer,
  leakedPiece,
  sendJson,
  sseHead,
  sseItem,
  startHostileServer,
} from "../helpers/hostileServer.js";
import { CliTerminal, tmuxVersion } from "../helpers/tmux.js";

/**
 * The built binary in a real terminal (tmux) against a service that echoes the user's key in
 * a title and in agent output at every offset of a line, so the panes cut it everywhere: the
 * screen tmux shows holds no piece of the key half its length or longer, at any width.
 */

const TMUX = tmuxVersion();

describe.skipIf(!TMUX)("hostile service in a real terminal", () => {
  const terminal = new CliTerminal();
  let server: HostileServer;
  let count = 0;

  beforeAll(async () => {
    await terminal.start();
    server = await startHostileServer({
      sessions: (_q, res) =>
        sendJson(res, 200, {
          sessions: [
            {
              id: "ses_one",
              state: "active",
              title: `t ${HOSTILE_KEY}`,
              updated_at: "2030-01-01T00:00:00Z",
            },
          ],
        }),
      events: (_q, res) => {
        sseHead(res);
        let out = "";
        for (let pad = 0; pad < 16; pad++) {
          out += sseItem(pad + 1, "process_output", {
            text: `${"~".repeat(pad * 5)}${HOSTILE_KEY}${"=".repeat(20)}\n`,
          });
        }
        out += sseItem(99, "process_output", { text: "END-OF-OUTPUT\n" });
        res.write(out);
      },
    });
  });

  afterEach(async () => {
    await terminal.closePanes();
  });

  afterAll(async () => {
    await terminal.stop();
    await server?.close();
  });

  for (const width of [70, 111, 160]) {
    it(`shows no piece of the key at ${width} columns, also zoomed`, async () => {
      const app = terminal.command(server.url, HOSTILE_KEY, ["open", "ses_one"], {
        AGENT_SESSIONS_BELL: "0",
      });
      const pane = await terminal.open(`h${++count}`, `${app}; exec sleep 600`, {
        width,
        height: 45,
      });
      const screen = await pane.waitForText("END-OF-OUTPUT", { timeoutMs: 15_000 });
      expect(leakedPiece(screen)).toBeNull();
      await pane.keys("z");
      const zoomed = await pane.waitFor("the zoomed pane", (s) => !s.includes("Sessions 1/1"));
      expect(leakedPiece(zoomed)).toBeNull();
      expect(zoomed).toContain("END-OF-OUTPUT");
      await pane.keys("q");
    });
  }
});
