import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/** What each test file gets, in both projects below. */
const perFile = {
  setupFiles: ["test/setup.ts"],
  // A test's own waits are each bounded and say what they waited for (a frame 5 s, a
  // terminal screen 10 s, a CLI run 15 s unless the test says otherwise); the test timeout
  // is only the backstop for a test that hangs between them. Most integration and
  // end-to-end tests run the built CLI several times in a row, a Node process start each:
  // 2.5 to 5 s apiece on a loaded two-core machine (measured with three busy loops beside
  // the run), so six of them passed 20 s there. No retries: a test that fails once is
  // looked at, not run again.
  testTimeout: 60_000,
  hookTimeout: 30_000,
};

/** Tests of code that runs in the test's own process: no child process, no terminal. */
const IN_PROCESS = ["test/unit/**/*.test.ts", "test/ui/**/*.test.ts", "test/ui/**/*.test.tsx"];

export default defineConfig({
  test: {
    // Fails the run when a test leaves a temporary folder or a process behind.
    globalSetup: ["test/globalSetup.ts"],
    pool: "forks",
    // vitest's default, one worker fewer than the cores, is ONE worker on 2 cores: the files
    // would run one after another while most of them wait on child processes and sockets.
    // Every file has its own servers on port 0, tmux sockets, keychain accounts and
    // temporary folders, so two run side by side there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        // A process of its own for each file: the files that start the built CLI, tmux, a
        // keyring or a flood, and count their process's sockets and timers. vitest runs this
        // project's files first (by name), the longest first.
        test: {
          ...perFile,
          name: "isolated",
          include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
          exclude: ["test/bench/**", "node_modules/**", "dist/**", ...IN_PROCESS],
        },
      },
      {
        // The unit and UI tests: each file's module is its own, but a worker runs them one
        // after another with the modules they import (React, Ink, the app) already loaded.
        // A fresh process for each cost 1 to 2 s of imports a file, a third of these files'
        // time (115 s against 76 s for test/ui alone, 40 s against 21 s for test/unit).
        // Their state lives in what each test makes (stores, servers, harnesses, stopped by
        // stopStarted); a file that changes the process (the time zone) puts it back.
        test: {
          ...perFile,
          name: "shared",
          include: IN_PROCESS,
          isolate: false,
        },
      },
    ],
  },
});
