import { Text } from "ink";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { useTicked } from "../../src/ui/hooks/useNow.js";

/**
 * useTicked with `inputs`: a view over stores that change on every event (the fleet over a
 * hundred streams) reads them when they report a change or when its own inputs change, not on
 * React's other reads (its renders for other reasons, its check after each commit). Such a
 * read would take in what arrived during the frame and draw another frame out of the beat.
 */

/** A store whose changes are reported only when `report` is called (as a beat reports them). */
function source(initial: number) {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    read: () => value,
    set: (v: number) => {
      value = v;
    },
    report: () => {
      for (const l of [...listeners]) l();
    },
    subscribe: (l: () => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

type Source = ReturnType<typeof source>;

let reads = 0;

function Probe({
  src,
  label,
  other,
  withInputs,
}: {
  src: Source;
  label: string;
  other: number;
  withInputs: boolean;
}) {
  const value = useTicked(
    () => {
      reads++;
      return `${label}:${src.read()}`;
    },
    src.subscribe,
    undefined,
    withInputs ? [src, label] : undefined,
  );
  return <Text>{`${value} (other ${other})`}</Text>;
}

const turn = () => new Promise((r) => setTimeout(r, 20));

let app: ReturnType<typeof render> | null = null;
afterEach(() => {
  app?.unmount();
  app?.cleanup();
  app = null;
  reads = 0;
});

describe("useTicked with inputs", () => {
  it("reads the store when it reports a change or an input changes, not when React renders for another reason", async () => {
    const src = source(1);
    const tree = (label: string, other: number) => (
      <Probe src={src} label={label} other={other} withInputs />
    );
    app = render(tree("a", 0));
    await turn();
    expect(app.lastFrame()).toBe("a:1 (other 0)");
    const afterMount = reads;

    // The store moved on without reporting it (events between two beats), and the view
    // renders for something else: it keeps what it read, and reads nothing.
    src.set(2);
    app.rerender(tree("a", 1));
    await turn();
    expect(app.lastFrame()).toBe("a:1 (other 1)");
    expect(reads).toBe(afterMount);

    // The beat reports it: read once, drawn.
    src.report();
    await turn();
    expect(app.lastFrame()).toBe("a:2 (other 1)");
    const afterBeat = reads;
    expect(afterBeat).toBe(afterMount + 1);

    // An input of its own changed (a key moved the rows in view): read at once.
    src.set(3);
    app.rerender(tree("b", 1));
    await turn();
    expect(app.lastFrame()).toBe("b:3 (other 1)");
    expect(reads).toBe(afterBeat + 1);
  });

  it("a report that changes nothing it shows draws nothing new", async () => {
    const src = source(5);
    app = render(<Probe src={src} label="x" other={0} withInputs />);
    await turn();
    const frames = app.frames.length;
    src.report();
    await turn();
    expect(app.lastFrame()).toBe("x:5 (other 0)");
    expect(app.frames.length).toBe(frames);
  });

  it("without inputs it reads on every render, as before", async () => {
    const src = source(1);
    app = render(<Probe src={src} label="a" other={0} withInputs={false} />);
    await turn();
    src.set(2);
    app.rerender(<Probe src={src} label="a" other={1} withInputs={false} />);
    await turn();
    expect(app.lastFrame()).toBe("a:2 (other 1)");
  });
});
