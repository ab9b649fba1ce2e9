import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    exclude: ["test/bench/**", "node_modules/**", "dist/**"],
    setupFiles: ["test/setup.ts"],
    // Fails the run when a test leaves a temporary folder or a process behind.
    globalSetup: ["test/globalSetup.ts"],
    // A test's own waits are each bounded and say what they waited for (a frame 5 s, a
    // terminal screen 10 s, a CLI run 15 s unless the test says otherwise); the test timeout
    // is only the backstop for a test that hangs between them. Most integration and
    // end-to-end tests run the built CLI several times in a row, a Node process start each:
    // 2.5 to 5 s apiece on a loaded two-core machine (measured with three busy loops beside
    // the run), so six of them passed 20 s there. No retries: a test that fails once is
    // looked at, not run again.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: "forks",
    // vitest's default, one worker fewer than the cores, is ONE worker on 2 cores: the files
    // would run one after another while most of them wait on child processes and sockets.
    // Every file is isolated (its own servers on port 0, tmux sockets, keychain accounts and
    // temporary folders), so two run side by side there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
