/**
 * Reading a secret from the terminal without echoing it: the terminal is put in raw mode
 * (so it does not echo and does not turn Ctrl-C into SIGINT) and every keystroke is handled
 * here. Nothing of the secret is written back, not even one `*` per character, so its length
 * does not show either.
 */

/** The user pressed Ctrl-C (or Ctrl-D on an empty line) at the prompt. */
export class PromptCancelledError extends Error {
  readonly code = "cancelled";
  readonly exitCode = 130;
  readonly hint = "";
  constructor(message = "cancelled at the prompt; nothing was stored") {
    super(message);
    this.name = "PromptCancelledError";
  }
}

/**
 * The process was told to stop (SIGTERM) while the prompt waited: the terminal is given back
 * as it was and the command ends with 143 (128 + 15, the shell's code for SIGTERM).
 */
export class PromptTerminatedError extends Error {
  readonly code = "terminated";
  readonly exitCode = 143;
  readonly hint = "";
  constructor(message = "stopped by SIGTERM at the prompt; nothing was stored") {
    super(message);
    this.name = "PromptTerminatedError";
  }
}

/** Where the prompt hears SIGTERM; the process by default. */
export interface SignalSource {
  once(event: "SIGTERM", listener: () => void): unknown;
  off(event: "SIGTERM", listener: () => void): unknown;
}

/** What the prompt needs from a terminal input; process.stdin when it is a TTY. */
export interface RawInput {
  setRawMode(mode: boolean): unknown;
  isRaw?: boolean;
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  off(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  off(event: "end", listener: () => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const CTRL_U = "\u0015";
const BACKSPACE = "\u0008";
const DELETE = "\u007f";
const ESC = "\u001b";

/** Longer than any real key; stops a runaway paste from growing without bound. */
const MAX_LENGTH = 4096;

export function readHiddenLine(
  prompt: string,
  input: RawInput,
  output: { write(text: string): unknown },
  signals: SignalSource = process,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const wasRaw = input.isRaw === true;
    let chars: string[] = [];
    // Escape sequences (arrow keys, bracketed-paste markers) are skipped whole.
    let inEscape: "none" | "start" | "csi" | "ss3" = "none";
    let done = false;

    const finish = (result: { ok: true; value: string } | { ok: false; error: Error }) => {
      if (done) return;
      done = true;
      input.off("data", onData);
      input.off("end", onEnd);
      signals.off("SIGTERM", onTerm);
      input.setRawMode(wasRaw);
      input.pause();
      output.write("\n");
      if (result.ok) resolve(result.value);
      else reject(result.error);
    };

    const onEnd = () => finish({ ok: false, error: new PromptCancelledError() });
    // Raw mode must not outlive the process: a SIGTERM ends the prompt like Ctrl-C does.
    const onTerm = () => finish({ ok: false, error: new PromptTerminatedError() });

    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      for (const ch of text) {
        if (done) return;
        if (inEscape === "start") {
          inEscape = ch === "[" ? "csi" : ch === "O" ? "ss3" : "none";
          continue;
        }
        if (inEscape === "csi") {
          const code = ch.codePointAt(0) ?? 0;
          if (code >= 0x40 && code <= 0x7e) inEscape = "none";
          continue;
        }
        if (inEscape === "ss3") {
          inEscape = "none";
          continue;
        }
        switch (ch) {
          case "\r":
          case "\n":
            finish({ ok: true, value: chars.join("") });
            return;
          case CTRL_C:
            finish({ ok: false, error: new PromptCancelledError() });
            return;
          case CTRL_D:
            if (chars.length === 0) {
              finish({ ok: false, error: new PromptCancelledError() });
            } else {
              finish({ ok: true, value: chars.join("") });
            }
            return;
          case BACKSPACE:
          case DELETE:
            chars.pop();
            break;
          case CTRL_U:
            chars = [];
            break;
          case ESC:
            inEscape = "start";
            break;
          default:
            if ((ch.codePointAt(0) ?? 0) >= 0x20 && chars.length < MAX_LENGTH) chars.push(ch);
        }
      }
    };

    output.write(prompt);
    input.setRawMode(true);
    input.on("data", onData);
    input.on("end", onEnd);
    signals.once("SIGTERM", onTerm);
    input.resume();
  });
}

/** Everything piped to stdin (bounded): the non-interactive way to hand over a key. */
export async function readPipedInput(
  input: AsyncIterable<Buffer | string>,
  maxBytes = 64 * 1024,
): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > maxBytes) {
      throw new Error(`more than ${maxBytes} bytes on stdin; expected one API key`);
    }
    parts.push(buf);
  }
  return Buffer.concat(parts).toString("utf8");
}
