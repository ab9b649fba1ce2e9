/** One row of the benchmark table; `value` is null when the row could not be measured. */
export interface Row {
  id: string;
  measure: string;
  /** Display form of the value(s), e.g. "412,000 ev/s". */
  value: string;
  target: string;
  /** null: reference row, or not measured. */
  pass: boolean | null;
  /** Machine-readable figures of the row (rates, ratios, latencies…). */
  figures: Record<string, number | string | boolean | null>;
  /** Why a row was not measured, or what an interim figure stands for. */
  note?: string;
}

export function notMeasured(id: string, measure: string, target: string, reason: string): Row {
  return {
    id,
    measure,
    value: "not measured",
    target,
    pass: null,
    figures: {},
    note: `not measured: ${reason}`,
  };
}

export function verdict(r: Row): string {
  if (r.pass === true) return "PASS";
  if (r.pass === false) return "FAIL";
  return r.value === "not measured" ? "n/a" : "ref";
}

/** Thousands separators, fixed decimals. */
export function num(n: number, decimals = 0): string {
  return n.toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

export function markdownTable(rows: readonly Row[]): string {
  const lines = ["| # | measure | value | target | result |", "|---|---|---|---|---|"];
  for (const r of rows) {
    const cells = [r.id, r.measure, r.value, r.target, verdict(r)].map((c) =>
      c.replace(/\|/g, "\\|"),
    );
    lines.push(`| ${cells.join(" | ")} |`);
  }
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.id}: ${r.note}`);
  return notes.length > 0 ? `${lines.join("\n")}\n\n${notes.join("\n")}` : lines.join("\n");
}

/** The table for a terminal: fixed column caps, long cells wrapped onto continuation lines. */
export function textTable(rows: readonly Row[]): string {
  const head = ["#", "measure", "value", "target", "result"];
  const body = rows.map((r) => [r.id, r.measure, r.value, r.target, verdict(r)]);
  const caps = [11, 46, 46, 32, 6];
  const widths = caps.map((cap, c) =>
    Math.min(cap, Math.max(head[c]!.length, ...body.map((b) => b[c]!.length))),
  );
  const line = (cells: string[]): string[] => {
    const wrapped = cells.map((c, i) => wrap(c, widths[i]!));
    const n = Math.max(...wrapped.map((w) => w.length));
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      out.push(
        wrapped
          .map((w, i) => (w[k] ?? "").padEnd(widths[i]!))
          .join(" | ")
          .trimEnd(),
      );
    }
    return out;
  };
  const sep = widths.map((w) => "-".repeat(w)).join("-+-");
  const out = [...line(head), sep];
  for (const b of body) out.push(...line(b));
  const notes = rows.filter((r) => r.note).map((r) => `${r.id}: ${r.note}`);
  return notes.length > 0 ? `${out.join("\n")}\n\n${notes.join("\n")}` : out.join("\n");
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      out.push(line);
      line = word;
    }
    while (line.length > width) {
      out.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  out.push(line);
  return out;
}
