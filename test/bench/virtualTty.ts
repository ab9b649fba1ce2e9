import { EventEmitter } from "node:events";
import { performance } from "node:perf_hooks";

/** A terminal that is only memory: a fixed size, every write kept with the time it came. */
export class VirtualTerminal extends EventEmitter {
  readonly isTTY = true;
  writes: { at: number; data: string }[] = [];
  onWrite: ((data: string, at: number) => void) | null = null;
  /** Bytes written to this terminal so far. */
  bytes = 0;
  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    super();
  }
  write = (data: string): boolean => {
    const at = performance.now();
    this.bytes += Buffer.byteLength(data);
    this.onWrite?.(data, at);
    return true;
  };
}

/** Keyboard input for the app: what is written here reaches Ink as if typed. */
export class VirtualKeyboard extends EventEmitter {
  readonly isTTY = true;
  private pending: string | null = null;
  write(data: string): void {
    this.pending = data;
    this.emit("readable");
    this.emit("data", data);
  }
  read = (): string | null => {
    const d = this.pending;
    this.pending = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
