import { EventEmitter } from "node:events";

/**
 * A terminal that exists only in memory: Ink renders into it at a fixed size and every
 * write is kept as the latest frame (Ink's debug mode writes whole frames). Used by
 * `agent-sessions snapshot` and the benchmarks.
 */
export class VirtualTerminal extends EventEmitter {
  readonly isTTY = true;
  frames = 0;
  private last = "";

  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }

  write = (chunk: string | Uint8Array): boolean => {
    this.last = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    this.frames++;
    return true;
  };

  lastFrame(): string {
    return this.last;
  }

  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit("resize");
  }

  // Ink and Node call these on a TTY stream; an in-memory one has nothing to do.
  cursorTo(): boolean {
    return true;
  }
  moveCursor(): boolean {
    return true;
  }
  clearLine(): boolean {
    return true;
  }
  clearScreenDown(): boolean {
    return true;
  }
  getColorDepth(): number {
    return 8;
  }
  hasColors(): boolean {
    return true;
  }
}

/** A stdin that never sends a key (the snapshot is not interactive). */
export class SilentInput extends EventEmitter {
  readonly isTTY = true;
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  read(): null {
    return null;
  }
}
