import { runBareUi } from "./uiMain.js";

/**
 * The entry of the UI's start-up script, `dist/cli/ui-<hash>.js` (esbuild.config.mjs): one
 * classic script, no imports or exports, that main.ts compiles with V8's code cache
 * (scriptCache.ts). It hands its entry point out through the object the loader passes in.
 */
declare const __agentSessionsScript: { run?: () => Promise<number> };
__agentSessionsScript.run = runBareUi;
