/**
 * The launch's documented values and ranges (launch.mdx), with no imports, so the command
 * line's definitions can name them in `--help` without loading the schemas (zod) at start.
 * launch.ts builds its schemas from them.
 */

export const LAUNCH_AGENTS = ["claude-code", "codex", "github-copilot", "opencode"] as const;
export const LAUNCH_TEMPLATES = ["web-app", "backend-service", "static-site"] as const;
export const LAUNCH_MODELS = ["sonnet", "opus", "haiku", "opusplan"] as const;
export const LAUNCH_MODES = ["autopilot", "interactive"] as const;
export const ON_COMPLETE = ["pause", "destroy", "keep_alive"] as const;
export type OnComplete = (typeof ON_COMPLETE)[number];

export const TTL_MINUTES = { min: 1, max: 1440, default: 60 } as const;
export const PROMPT_TIMEOUT_MINUTES = { min: 1, max: 120, default: 15 } as const;
