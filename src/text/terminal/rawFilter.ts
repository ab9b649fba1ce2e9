/**
 * `attach --raw`: the sandbox's bytes go to the user's terminal as they came, but for the
 * string sequences, which are dropped whole: every OSC (clipboard writes with OSC 52, window
 * and icon titles, hyperlinks, colour changes), DCS, SOS, PM and APC, in their 7-bit and 8-bit
 * forms. Streaming: a sequence split across chunks is still recognised, and one that never
 * ends is dropped up to its end or the connection's. Everything else, device queries included,
 * is what `--raw` promises: the user's terminal sees it.
 */

const ESC = 0x1b;
const BEL = 0x07;
/** 8-bit introducers: DCS, SOS, OSC, PM, APC; and ST. */
const C1_STRING = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
const C1_ST = 0x9c;
/** 7-bit introducers after ESC: P (DCS), X (SOS), ] (OSC), ^ (PM), _ (APC). */
const ESC_STRING = new Set([0x50, 0x58, 0x5d, 0x5e, 0x5f]);

type State = "text" | "esc" | "string" | "stringEsc";

export class RawFilter {
  #state: State = "text";
  /** String sequences dropped so far. */
  dropped = 0;

  /** The bytes of `chunk` that may reach the user's terminal. */
  push(chunk: Uint8Array): Uint8Array {
    const out = new Uint8Array(chunk.length + 1);
    let n = 0;
    for (const b of chunk) {
      switch (this.#state) {
        case "text":
          if (b === ESC) this.#state = "esc";
          else if (C1_STRING.has(b)) this.#begin();
          else out[n++] = b;
          break;
        case "esc":
          if (ESC_STRING.has(b)) this.#begin();
          else {
            out[n++] = ESC;
            if (b === ESC) break;
            out[n++] = b;
            this.#state = "text";
          }
          break;
        case "string":
          if (b === BEL || b === C1_ST) this.#state = "text";
          else if (b === ESC) this.#state = "stringEsc";
          break;
        case "stringEsc":
          // ESC \ (ST) ends it; any other byte after an ESC stays inside the string.
          this.#state = b === 0x5c ? "text" : b === ESC ? "stringEsc" : "string";
          break;
      }
    }
    return out.subarray(0, n);
  }

  #begin(): void {
    this.#state = "string";
    this.dropped++;
  }
}
