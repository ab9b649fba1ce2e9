import { readFileSync } from "node:fs";

/** The package version, read once from package.json next to dist/ or src/. */
function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** Set by the bundler (esbuild.config.mjs): the bundle does not sit beside package.json. */
declare const AGENT_SESSIONS_BUNDLED_VERSION: string | undefined;

export const VERSION =
  typeof AGENT_SESSIONS_BUNDLED_VERSION === "string"
    ? AGENT_SESSIONS_BUNDLED_VERSION
    : readVersion();
export const PRODUCT = "agent-sessions-tui";
export const USER_AGENT = `${PRODUCT}/${VERSION} (node ${process.version})`;
