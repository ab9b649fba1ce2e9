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
  },
});
