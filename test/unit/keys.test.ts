import type { Key } from "ink";
import { describe, expect, it } from "vitest";
import { handlerFor } from "../../src/ui/input/handlers/index.js";
import { commandFor, type KeyPress, splitKeys } from "../../src/ui/input/keys.js";
import {
  type CommandId,
  footerCommands,
  KEYMAP,
  MODE_KINDS,
  type ModeKind,
} from "../../src/ui/model/keymap.js";
import type { MainMode } from "../../src/ui/model/mode.js";
import { inkKey } from "../helpers/inkKey.js";

/** Each press as the text a user would write it. */
function spell(presses: KeyPress[]): string[] {
  return presses.map((p) =>
    p.name
      ? `<${p.ctrl ? "C-" : ""}${p.shift ? "S-" : ""}${p.name}>`
      : p.ctrl
        ? `<C-${p.text}>`
        : p.text,
  );
}

const read = (input: string, flags?: Partial<Key>) => spell(splitKeys(input, inkKey(flags)));

describe("a read split into key presses", () => {
  it("keeps a key and the Enter or Tab that came with it, in order", () => {
    expect(read("j\r")).toEqual(["j", "<return>"]);
    expect(read("\tj")).toEqual(["<tab>", "j"]);
    expect(read("jj\tk\r")).toEqual(["jj", "<tab>", "k", "<return>"]);
  });

  it("keeps a pasted line whole, and its line end as one Enter", () => {
    expect(read("https://host/o/r.git\r\n")).toEqual(["https://host/o/r.git", "<return>"]);
    expect(read("a\nb")).toEqual(["a", "<return>", "b"]);
  });

  it("turns control characters into the keys they stand for and drops the rest", () => {
    expect(read("\u0015key\u007f\u0008")).toEqual(["<C-u>", "key", "<delete>", "<backspace>"]);
    expect(read("a\u0000\u001cb")).toEqual(["a", "b"]);
  });

  it("takes a key Ink already named as that one key", () => {
    expect(read("", { tab: true, shift: true })).toEqual(["<S-tab>"]);
    expect(read("", { escape: true, meta: true })).toEqual(["<escape>"]);
    expect(read("c", { ctrl: true })).toEqual(["<C-c>"]);
    expect(splitKeys("j", inkKey({ meta: true }))).toEqual([
      { text: "j", name: null, ctrl: false, shift: false, meta: true },
    ]);
  });

  it("marks a capital letter as shifted", () => {
    expect(splitKeys("G", inkKey({ shift: true }))[0]?.shift).toBe(true);
    expect(splitKeys("jG", inkKey()).map((p) => p.text)).toEqual(["jG"]);
  });
});

describe("the keymap table", () => {
  it("has a handler for every command wherever the table enables it", () => {
    const edits = new Set<CommandId>(["deleteChar", "deleteWord", "clearField"]);
    const textModes = new Set<ModeKind>([
      "form",
      "filter",
      "search",
      "jump",
      "login",
      "prompt",
      "integrationEdit",
      "reviewSearch",
      "terminalSearch",
    ]);
    for (const c of KEYMAP) {
      for (const mode of c.modes) {
        if (mode === "login") continue; // the login screen's own target: test/ui/login.test.tsx
        if (edits.has(c.id) && textModes.has(mode)) continue; // the text field takes them
        const handler = handlerFor({ kind: mode } as MainMode, c.id);
        expect(handler, `${c.id} in ${mode}`).toBeTypeOf("function");
      }
    }
  });

  it("finds a key's command only in the modes that enable it", () => {
    const n = { text: "n", name: null, ctrl: false, shift: false, meta: false };
    expect(commandFor("pane", n)?.id).toBe("searchNext");
    expect(commandFor("confirm", n)?.id).toBe("confirmNo");
    expect(commandFor("list", n)).toBeNull();
    expect(commandFor("form", n)).toBeNull();
  });

  it("hints in the footer only commands the mode enables", () => {
    for (const mode of MODE_KINDS) {
      for (const c of footerCommands(mode)) expect(c.modes, `${c.id} in ${mode}`).toContain(mode);
    }
    expect(footerCommands("confirm").map((c) => c.id)).toEqual([
      "confirmYes",
      "confirmNo",
      "cancel",
    ]);
  });
});
