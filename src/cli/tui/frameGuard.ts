import type { Redactor } from "../../text/redact.js";

/**
 * The last guard between the UI and the terminal. Text from the service is sanitized and the
 * key redacted where it enters the stores; Ink then lays it out and writes whole frames
 * itself, so this sees every frame as it goes out:
 *
 * - any piece of a registered key (half its length or more) is masked character for
 *   character with `•`, so the frame keeps the width Ink computed, even when a pane's edge or
 *   a colour change cuts the key;
 * - OSC, DCS, SOS, PM and APC strings (clipboard writes, titles, links: the UI never draws
 *   any), C1 controls and bidi controls are dropped: all zero-width, so the layout holds.
 *
 * Ink's own CSI sequences (colours, cursor moves, erasing lines) pass untouched.
 */

const STRINGS = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?/g;
const LONE = /[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NEEDS_WORK = /[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\x1b[\]PX^_]/;

/** One frame made safe to write (see the module comment). */
export function guardFrame(frame: string, secrets: Pick<Redactor, "mask">): string {
  const clean = NEEDS_WORK.test(frame) ? frame.replace(STRINGS, "").replace(LONE, "") : frame;
  return secrets.mask(clean);
}

type Writable = { write(chunk: string | Uint8Array, ...rest: never[]): boolean };

/**
 * The stream with every write passed through guardFrame; everything else (size, isTTY,
 * resize events, …) is the stream's own. Give this to Ink as its stdout.
 */
export function guardStream<T extends Writable>(stream: T, secrets: Pick<Redactor, "mask">): T {
  const write = (chunk: string | Uint8Array, ...rest: never[]): boolean => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return stream.write(guardFrame(text, secrets), ...rest);
  };
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === "write") return write;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, prop, value) {
      return Reflect.set(target, prop, value, target);
    },
  });
}
