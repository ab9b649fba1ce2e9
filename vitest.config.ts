import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    exclude: ["test/bench/**", "node_modules/**", "dist/**"],
    setupFiles: ["test/setup.ts"],
    // Fails the run when a test leaves a temporary folder or a process behind.
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // vitest's default, one worker fewer than the cores, is ONE worker on 2 cores: the files
    // would run one after another while most of them wait on child processes and sockets.
    // Every file is isolated (its own servers on port 0, tmux sockets, keychain accounts and
    // temporary folders), so two run side by side there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
