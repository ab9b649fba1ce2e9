import { EventEmitter } from "node:events";

/** The part of a TTY write stream that Ink and the writers in front of the terminal use. */
export interface TerminalStream {
  readonly columns: number;
  readonly rows: number;
  write(data: string): boolean;
  on(event: "resize", fn: () => void): unknown;
  off(event: "resize", fn: () => void): unknown;
}

/**
 * What Ink is given as its stdout when something stands in front of the terminal (the diff
 * writer, the ASCII table): a TTY of the terminal's size that takes Ink's writes as text and
 * passes the terminal's resizes on. A subclass decides what reaches the terminal.
 */
export abstract class InkStdout extends EventEmitter {
  readonly isTTY = true;
  private readonly onResize = () => this.resized();

  constructor(protected readonly out: TerminalStream) {
    super();
    out.on("resize", this.onResize);
  }

  get columns(): number {
    return this.out.columns || 80;
  }

  get rows(): number {
    return this.out.rows || 24;
  }

  /** Ink's write: the text goes to `take`, and Ink's callback runs once it has. */
  write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const data = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    this.take(data);
    rest.find((x): x is () => void => typeof x === "function")?.();
    return true;
  };

  /** What Ink wrote, as text. */
  protected abstract take(data: string): void;

  /** The terminal changed size; Ink hears of it after the subclass. */
  protected resized(): void {
    this.emit("resize");
  }

  /** Stops listening to the terminal. */
  dispose(): void {
    this.out.off("resize", this.onResize);
  }
}
