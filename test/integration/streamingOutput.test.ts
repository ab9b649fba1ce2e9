import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI, runCliTo, serviceEnv, tempConfigHome } from "../helpers/cli.js";
import {
  HOSTILE_KEY,
  type HostileRoutes,
  type HostileServer,
  leakedPiece,
  sendJson,
  sseHead,
  sseItem,
  startHostile,
} from "../helpers/hostileServer.js";
import { stopStarted } from "../helpers/stopAfterTest.js";

/**
 * The streaming headless commands (`prompt`, `watch`) against hostile loopback services, with
 * stdout a file, a pipe, a reader that stops early and a terminal: the key sent back a few
 * characters at a time is never printed, colours reach only a terminal (never under
 * NO_COLOR), a flood waits for a reader that stops reading instead of filling memory, and a
 * closed stdout ends the command quietly.
 */

const cfg = tempConfigHome();
afterEach(stopStarted);
afterAll(() => cfg.cleanup());

const env = (s: HostileServer, extra: Record<string, string> = {}) =>
  serviceEnv(cfg.dir, s.url, HOSTILE_KEY, extra);

const text = (content: string) => sseItem(null, "text", { type: "text", content });
const DONE = sseItem(null, "done", { type: "done", content: "" });

/** The sessions route with this answer to `POST …/prompt`; other requests as a legal server. */
function onPrompt(answerWith: (res: ServerResponse) => void): HostileRoutes {
  return {
    sessions: (req, res) => {
      if (req.method === "POST" && req.url?.endsWith("/prompt")) answerWith(res);
      else sendJson(res, 200, { id: "ses_one", state: "active" });
    },
  };
}

/** An answer: the prompt's items, then done. */
function answer(items: string[]): HostileRoutes {
  return onPrompt((res) => {
    sseHead(res);
    res.end(items.join("") + DONE);
  });
}

/** The key a few characters an item, with colour codes, UTF-8 and line ends between them. */
function keyInPieces(): string[] {
  const items: string[] = [text("Your key is: ")];
  const noise = ["\x1b[31m", "", "\n", "\x1b[0m", "", "\u200b", "\r\n", ""];
  for (let i = 0, n = 0; i < HOSTILE_KEY.length; n++) {
    const size = 1 + (n % 4);
    items.push(text(HOSTILE_KEY.slice(i, i + size) + (noise[n % noise.length] ?? "")));
    i += size;
  }
  items.push(text(" — naïve ☕ 😀 end.\n"));
  return items;
}

/** What a reader reads: escape sequences, line ends and zero-width characters left out. */
function seen(out: string): string {
  return out.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").replace(/[\r\n\u200b]/g, "");
}

describe("the key sent back a few characters at a time is never printed", () => {
  for (const kind of ["pipe", "file", "terminal"] as const) {
    it(`prompt, plain and --json, stdout a ${kind}`, async () => {
      const s = await startHostile(answer(keyInPieces()));
      for (const json of [false, true]) {
        const r = await runCliTo(
          ["prompt", "ses_one", "hi", ...(json ? ["--json"] : [])],
          env(s),
          kind,
        );
        expect(r.code).toBe(0);
        expect(leakedPiece(seen(r.stdout))).toBeNull();
        expect(leakedPiece(seen(r.stderr))).toBeNull();
        expect(r.stdout).toContain("[redacted key]");
        expect(r.stdout).toContain("naïve ☕ 😀 end.");
      }
    });
  }

  it("watch, plain and --json: the key over prompt text and process output events", async () => {
    const events: HostileRoutes = {
      events: (_q, res) => {
        sseHead(res);
        let id = 0;
        const k = HOSTILE_KEY;
        res.write(
          sseItem(++id, "prompt_progress", { type: "text", content: `key ${k.slice(0, 5)}` }),
        );
        res.write(sseItem(++id, "prompt_progress", { type: "text", content: k.slice(5, 12) }));
        res.write(sseItem(++id, "prompt_progress", { type: "text", content: `${k.slice(12)}\n` }));
        for (let i = 0; i < k.length; i += 6) {
          res.write(sseItem(++id, "process_output", { text: `\x1b[32m${k.slice(i, i + 6)}\n` }));
        }
        res.write(sseItem(++id, "file_changed", { path: "end.txt", action: "created" }));
      },
    };
    const s = await startHostile(events);
    for (const json of [false, true]) {
      const r = await runCliTo(
        ["watch", "ses_one", "--max-events", json ? "10" : "8", ...(json ? ["--json"] : [])],
        env(s),
        "pipe",
      );
      expect(r.code).toBe(0);
      const shown = json
        ? r.stdout
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => {
              const d = (JSON.parse(l) as { data: { content?: string; text?: string } }).data;
              return d.content ?? d.text ?? "";
            })
            .join("")
        : r.stdout.replace(/^\S+ (prompt|output|file) +/gm, "");
      expect(leakedPiece(seen(shown))).toBeNull();
      expect(shown).toContain("[redacted key]");
    }
  });
});

describe("colour only on a terminal, never under NO_COLOR", () => {
  const coloured = [text("\x1b[8mconcealed\x1b[0m and \x1b[1;31mred\x1b[0m\n")];
  const ESC = /\x1b/;

  for (const kind of ["pipe", "file"] as const) {
    it(`prompt and watch write no escape sequence to a ${kind}`, async () => {
      const s = await startHostile({
        ...answer(coloured),
        events: (_q, res) => {
          sseHead(res);
          res.write(sseItem(1, "process_output", { text: "\x1b[8mhidden\x1b[0m \x1b[31mred\n" }));
        },
      });
      for (const extra of [{}, { NO_COLOR: "1" }] as Record<string, string>[]) {
        const p = await runCliTo(["prompt", "ses_one", "hi"], env(s, extra), kind);
        expect(p.code).toBe(0);
        expect(p.stdout).toBe("concealed and red\n");
        expect(p.stderr).not.toMatch(ESC);
        const w = await runCliTo(["watch", "ses_one", "--max-events", "1"], env(s, extra), kind);
        expect(w.code).toBe(0);
        expect(w.stdout).toMatch(/output +hidden red\n$/);
        expect(w.stdout).not.toMatch(ESC);
      }
    });
  }

  it("on a terminal the agent's colours are kept, and NO_COLOR strips them", async () => {
    const s = await startHostile({
      ...answer(coloured),
      events: (_q, res) => {
        sseHead(res);
        res.write(sseItem(1, "process_output", { text: "\x1b[31mred output\x1b[0m\n" }));
      },
    });
    const watchTty = await runCliTo(["watch", "ses_one", "--max-events", "1"], env(s), "terminal");
    expect(watchTty.code).toBe(0);
    expect(watchTty.stdout).toContain("\x1b[31mred output");
    const watchPlain = await runCliTo(
      ["watch", "ses_one", "--max-events", "1"],
      env(s, { NO_COLOR: "1" }),
      "terminal",
    );
    expect(watchPlain.code).toBe(0);
    expect(watchPlain.stdout).toContain("red output");
    expect(watchPlain.stdout).not.toMatch(ESC);
    const tty = await runCliTo(["prompt", "ses_one", "hi"], env(s), "terminal");
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain("\x1b[1;31mred\x1b[0m");
    const plain = await runCliTo(
      ["prompt", "ses_one", "hi"],
      env(s, { NO_COLOR: "1" }),
      "terminal",
    );
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("concealed and red");
    expect(plain.stdout).not.toMatch(ESC);
  });
});

describe("a closed stdout ends quietly", () => {
  /** An answer that goes on for a while, then says done. */
  const long: HostileRoutes = onPrompt((res) => {
    sseHead(res);
    let n = 0;
    const t = setInterval(() => {
      if (!res.writable) return clearInterval(t);
      n++;
      if (n > 200) {
        clearInterval(t);
        res.end(DONE);
      } else res.write(text(`part ${n} of a long answer\n`));
    }, 5);
    res.on("close", () => clearInterval(t));
  });

  for (const json of [false, true]) {
    it(`prompt${json ? " --json" : ""} | head -c 20: exit 0, nothing on stderr`, async () => {
      const s = await startHostile(long);
      // `| head -c 20`: the reader goes away once it has 20 characters.
      const r = await runCliTo(
        ["prompt", "ses_one", "hi", ...(json ? ["--json"] : [])],
        env(s),
        "pipe",
        {
          closeWhen: (o) => o.length >= 20,
        },
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
    });
  }

  it("prompt | head -1 and watch | head -1 (plain)", async () => {
    const s = await startHostile({
      ...long,
      events: (_q, res) => {
        sseHead(res);
        let n = 0;
        const t = setInterval(() => {
          if (!res.writable) return clearInterval(t);
          res.write(sseItem(++n, "process_output", { text: `line ${n}\n` }));
        }, 5);
        res.on("close", () => clearInterval(t));
      },
    });
    for (const args of [
      ["prompt", "ses_one", "hi"],
      ["watch", "ses_one"],
    ]) {
      const r = await runCliTo(args, env(s), "pipe", { closeWhen: (o) => o.includes("\n") });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/error:|EPIPE|\n\s+at /);
    }
  });
});

/** Resident memory of a process (Linux), in MB. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  return kb / 1024;
}

/** Writes SSE items of `item` until `total` bytes are sent, respecting the socket's pace. */
function flood(res: ServerResponse, item: string, total: number, end: string): void {
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      sent += item.length;
      if (!res.write(item)) return void res.once("drain", pump);
    }
    res.end(end);
  };
  res.on("error", () => {});
  pump();
}

describe.skipIf(process.platform !== "linux")("backpressure", () => {
  const TOTAL = 160 * 1024 * 1024;

  for (const cmd of ["prompt", "watch"] as const) {
    it(`${cmd}: a flood waits for a reader that stopped reading, memory stays bounded`, async () => {
      let bytesOut = () => 0;
      const s = await startHostile({
        ...onPrompt((res) => {
          sseHead(res);
          bytesOut = () => res.socket?.bytesWritten ?? 0;
          flood(res, text(`${"flood ".repeat(10_922)}\n`), TOTAL, DONE);
        }),
        events: (_q, res) => {
          sseHead(res);
          bytesOut = () => res.socket?.bytesWritten ?? 0;
          const item = sseItem(null, "process_output", { text: `${"flood ".repeat(10_922)}` });
          flood(res, item, TOTAL, "");
        },
      });
      const args = cmd === "prompt" ? ["prompt", "ses_one", "hi"] : ["watch", "ses_one", "--json"];
      const child = spawn(process.execPath, ["--max-old-space-size=96", CLI, ...args], {
        env: env(s),
        stdio: ["ignore", "pipe", "pipe"],
      });
      // Nobody reads stdout (a pager waiting for a key).
      child.stdout.pause();
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      try {
        // Until the service can push no more: what it sent stands still for a second once
        // the flood has begun (4 s at most; a client that keeps reading never stands still,
        // and what it took by then is measured below).
        let peak = 0;
        let sent = 0;
        for (let i = 0, still = 0; i < 40 && still < 10; i++) {
          await new Promise((r) => setTimeout(r, 100));
          peak = Math.max(peak, rssMb(child.pid as number));
          const now = bytesOut();
          still = now > 0 && now === sent ? still + 1 : 0;
          sent = now;
        }
        const sentWhilePaused = bytesOut();
        // The service could not push the flood through: the client stopped reading the socket.
        expect(sentWhilePaused).toBeLessThan(TOTAL / 4);
        expect(peak).toBeLessThan(160);
        // The reader resumes: everything comes through and the command ends.
        let got = 0;
        let interrupted = false;
        child.stdout.on("data", (d: Buffer) => {
          got += d.length;
          // watch follows until Ctrl-C (once: a second one would be Node's default, a kill).
          if (cmd === "watch" && got > TOTAL / 2 && !interrupted)
            interrupted = child.kill("SIGINT");
        });
        child.stdout.resume();
        const code = await closed;
        expect(stderr).not.toMatch(/heap|error:/i);
        if (cmd === "prompt") {
          expect(code).toBe(0);
          expect(got).toBeGreaterThan(TOTAL * 0.9);
        } else {
          expect(code).toBe(0);
          expect(got).toBeGreaterThan(TOTAL / 2);
        }
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        await closed;
      }
    }, 90_000);
  }
});
