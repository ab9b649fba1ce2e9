import { describe, expect, it } from "vitest";
import { commandFor, type KeyPress } from "../../src/ui/input/keys.js";
import {
  enabledNow,
  KEYMAP,
  type KeySpec,
  keyLabel,
  MODE_KINDS,
} from "../../src/ui/model/keymap.js";

/**
 * The keymap table decides what a key means: no two commands enabled in the same mode may
 * share a key (one of them would never run), and every key of every command reaches that
 * command in each of its modes through the one key path.
 */

function pressOf(spec: KeySpec): KeyPress {
  return {
    text: spec.char ?? "",
    name: spec.name ?? null,
    ctrl: spec.ctrl ?? false,
    shift: spec.shift ?? (spec.char !== undefined && /^[A-Z]$/.test(spec.char)),
    meta: false,
  };
}

function id(spec: KeySpec): string {
  return `${spec.ctrl ? "C-" : ""}${spec.shift ? "S-" : ""}${spec.name ?? spec.char}`;
}

describe("keymap", () => {
  it("no two commands share a key in any mode", () => {
    const clashes: string[] = [];
    // A replay's rows and a live UI's are never on together: check each setting apart.
    for (const [mode, replaying] of MODE_KINDS.flatMap((m) => [
      [m, false] as const,
      [m, true] as const,
    ])) {
      const seen = new Map<string, string>();
      for (const cmd of KEYMAP) {
        if (!cmd.modes.includes(mode) || !enabledNow(cmd, replaying)) continue;
        for (const k of cmd.keys) {
          const other = seen.get(id(k));
          if (other && other !== cmd.id) {
            clashes.push(`${mode}: ${keyLabel(k)} is both ${other} and ${cmd.id}`);
          }
          seen.set(id(k), cmd.id);
        }
      }
    }
    expect(clashes).toEqual([]);
  });

  it("every key of every command reaches it in each of its modes", () => {
    const lost: string[] = [];
    for (const cmd of KEYMAP) {
      for (const mode of cmd.modes) {
        for (const k of cmd.keys) {
          const got = commandFor(mode, pressOf(k), cmd.replay === true);
          if (got?.id !== cmd.id) lost.push(`${mode}: ${keyLabel(k)} → ${got?.id ?? "nothing"}`);
        }
      }
    }
    expect(lost).toEqual([]);
  });

  it("Space marks a row in a live UI and plays/pauses in a replay, never both", () => {
    const space = pressOf({ char: " " });
    expect(commandFor("list", space)?.id).toBe("mark");
    expect(commandFor("fleet", space)?.id).toBe("mark");
    expect(commandFor("list", space, true)?.id).toBe("replayToggle");
    expect(commandFor("pane", space)).toBeNull();
  });

  it("the fleet's keys: v, T and A work from the list, a pane and the views", () => {
    for (const [char, want] of [
      ["v", "fleet"],
      ["T", "merged"],
      ["A", "attentionQueue"],
      ["a", "nextAttention"],
    ] as const) {
      for (const mode of ["list", "pane", "fleet", "merged"] as const) {
        expect(commandFor(mode, pressOf({ char }))?.id, `${char} in ${mode}`).toBe(want);
      }
    }
  });
});
