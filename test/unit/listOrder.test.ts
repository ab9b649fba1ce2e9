import { describe, expect, it } from "vitest";
import type { Session } from "../../src/protocol/resources.js";
import { orderSessions } from "../../src/ui/model/listOrder.js";

/** The rows' order: what needs you first, held while keys are pressed. */

const s = (id: string) => ({ session_id: id }) as Session;
const ids = (l: readonly Session[]) => l.map((x) => x.session_id);

describe("list order", () => {
  it("puts the sessions that need you first, keeping the sort among each group", () => {
    const sorted = [s("a"), s("b"), s("c"), s("d")];
    expect(ids(orderSessions(sorted, null, new Set(["c", "a"])))).toEqual(["a", "c", "b", "d"]);
    expect(orderSessions(sorted, null, new Set())).toBe(sorted);
  });

  it("while held, rows stay where they were: a resorted refresh changes nothing, new ones join at the end, gone ones leave", () => {
    const held = ["a", "b", "c", "d"];
    const resorted = [s("d"), s("e"), s("c"), s("a")];
    expect(ids(orderSessions(resorted, held, new Set(["e"])))).toEqual(["a", "c", "d", "e"]);
  });
});
