import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A forked measuring child: send a message, wait for a message of a given type. */
export interface MeasuringChild {
  pid: number;
  send(msg: Record<string, unknown>): void;
  next<T>(type: string, timeoutMs: number): Promise<T>;
  exited: Promise<number | null>;
  kill(): void;
}

export function forkChild(
  file: string,
  args: unknown,
  execArgv: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): MeasuringChild {
  // BENCH_CPU_PROF=DIR: every measuring child writes a V8 CPU profile there (node --cpu-prof).
  const prof = process.env.BENCH_CPU_PROF;
  const child: ChildProcess = fork(
    fileURLToPath(new URL(file, import.meta.url)),
    [JSON.stringify(args)],
    {
      execArgv: prof ? [...execArgv, "--cpu-prof", `--cpu-prof-dir=${prof}`] : execArgv,
      env,
      // stdout is not ours to write to: the table goes there.
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    },
  );
  // Ink shows the cursor again on exit, on stderr: not something to pass to our terminal.
  child.stderr?.on("data", (b: Buffer) => {
    const text = b.toString("utf8").replace(/\x1b\[\?25[hl]/g, "");
    if (text !== "") process.stderr.write(text);
  });
  const inbox: { type: string }[] = [];
  const waiters: { type: string; resolve: (m: unknown) => void }[] = [];
  child.on("message", (m: { type: string }) => {
    const i = waiters.findIndex((w) => w.type === m.type);
    if (i !== -1) waiters.splice(i, 1)[0]?.resolve(m);
    else inbox.push(m);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  return {
    pid: child.pid ?? -1,
    send: (msg) => child.send(msg),
    next<T>(type: string, timeoutMs: number): Promise<T> {
      const i = inbox.findIndex((m) => m.type === type);
      if (i !== -1) return Promise.resolve(inbox.splice(i, 1)[0] as T);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`child: no "${type}" in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const w = {
          type,
          resolve: (m: unknown) => {
            clearTimeout(timer);
            resolve(m as T);
          },
        };
        waiters.push(w);
        void exited.then((code) => {
          const at = waiters.indexOf(w);
          if (at === -1) return;
          waiters.splice(at, 1);
          clearTimeout(timer);
          reject(new Error(`child exited (${code}) before "${type}"`));
        });
      });
    },
    exited,
    kill: () => {
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

/** In a child: the arguments the parent passed. */
export function childArgs<T>(): T {
  return JSON.parse(process.argv[2] ?? "{}") as T;
}

/** In a child: reply to the parent. */
export function tell(msg: { type: string } & Record<string, unknown>): void {
  process.send?.(msg);
}

/** In a child: resolves when cond() holds, checked on every store change and every 20 ms. */
export function waitUntil(
  cond: () => boolean,
  timeoutMs: number,
  what: string,
  subscribe?: (listener: () => void) => () => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (cond()) {
      resolve();
      return;
    }
    let unsubscribe: (() => void) | undefined;
    const finish = (e?: Error) => {
      clearInterval(poll);
      clearTimeout(timer);
      unsubscribe?.();
      if (e) reject(e);
      else resolve();
    };
    const check = () => {
      if (cond()) finish();
    };
    const poll = setInterval(check, 20);
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), timeoutMs);
    unsubscribe = subscribe?.(check);
  });
}

/**
 * The environment of a child that mounts the Ink app: React's production build
 * (NODE_ENV=production; the development build costs several times the CPU per frame) unless
 * BENCH_REACT_DEV=1 asks for the development build, no CI variable (Ink writes only the
 * last frame when it sees one), and colours as a 256-colour terminal (TERM=xterm-256color, as
 * B8's pty) has them: the child's stdout is no terminal, so without FORCE_COLOR its frames
 * would carry no colour codes at all, which Ink tokenizes, diffs and writes in every frame.
 */
export function appEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", FORCE_COLOR: "2" };
  if (process.env.BENCH_REACT_DEV === "1") delete env.NODE_ENV;
  delete env.CI;
  delete env.NO_COLOR;
  return env;
}
