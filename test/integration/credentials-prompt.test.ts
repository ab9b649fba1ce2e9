import { EventEmitter } from "node:events";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  PromptCancelledError,
  type RawInput,
  readHiddenLine,
  readPipedInput,
} from "../../src/cli/hiddenInput.js";

/** A terminal stand-in: records raw-mode changes; the test types into it. */
class FakeTerminal extends EventEmitter implements RawInput {
  isRaw = false;
  rawModes: boolean[] = [];
  paused = true;
  setRawMode(mode: boolean) {
    this.isRaw = mode;
    this.rawModes.push(mode);
    return this;
  }
  resume() {
    this.paused = false;
    return this;
  }
  pause() {
    this.paused = true;
    return this;
  }
  type(text: string) {
    this.emit("data", Buffer.from(text, "utf8"));
  }
}

function sink() {
  const written: string[] = [];
  return { written, write: (t: string) => written.push(t) };
}

describe("hidden prompt", () => {
  it("reads a line without echoing any of it, and restores the terminal", async () => {
    const term = new FakeTerminal();
    const out = sink();
    const line = readHiddenLine("key: ", term, out);
    term.type("ask_sec");
    term.type("ret\r");
    expect(await line).toBe("ask_secret");
    expect(out.written.join("")).toBe("key: \n");
    expect(term.rawModes).toEqual([true, false]);
    expect(term.paused).toBe(true);
    expect(term.listenerCount("data")).toBe(0);
  });

  it("handles backspace, Ctrl-U and escape sequences", async () => {
    const term = new FakeTerminal();
    const line = readHiddenLine("", term, sink());
    // typo fixed with backspace (DEL and ^H), an arrow key ignored, a bracketed paste kept
    term.type("abx\u007fc\u001b[Dd\u0008e");
    term.type("\u001b[200~XYZ\u001b[201~");
    term.type("\n");
    expect(await line).toBe("abceXYZ");

    const again = readHiddenLine("", term, sink());
    term.type("wrong\u0015right\r");
    expect(await again).toBe("right");
  });

  it("Ctrl-C cancels and restores the terminal", async () => {
    const term = new FakeTerminal();
    const line = readHiddenLine("", term, sink());
    term.type("ask_partial\u0003");
    await expect(line).rejects.toBeInstanceOf(PromptCancelledError);
    await expect(line).rejects.toMatchObject({ exitCode: 130 });
    expect(term.isRaw).toBe(false);
    expect(term.listenerCount("data")).toBe(0);
  });

  it("a terminal that was already raw stays raw", async () => {
    const term = new FakeTerminal();
    term.isRaw = true;
    const line = readHiddenLine("", term, sink());
    term.type("k\r");
    await line;
    expect(term.isRaw).toBe(true);
  });
});

describe("piped key", () => {
  it("reads all of stdin", async () => {
    expect(await readPipedInput(Readable.from([Buffer.from("ask_a"), Buffer.from("bc\n")]))).toBe(
      "ask_abc\n",
    );
  });

  it("refuses an unbounded stream", async () => {
    const big = Readable.from([Buffer.alloc(40 * 1024, 97), Buffer.alloc(40 * 1024, 97)]);
    await expect(readPipedInput(big)).rejects.toThrow(/more than 65536 bytes on stdin/);
  });
});
