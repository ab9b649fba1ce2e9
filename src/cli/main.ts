#!/usr/bin/env node
import { handleClosedOutput, reportError, stdoutClosed } from "./output.js";
import { main } from "./program.js";

// React (loaded lazily with the UI) must run its production build: the development build
// costs about a quarter of the frame rate (see the Performance section of the README).
process.env.NODE_ENV ??= "production";

// `agent-sessions … | head`: a reader that goes away ends the command quietly, exit 0.
handleClosedOutput();

process.on("unhandledRejection", (reason) => {
  process.exitCode = reportError(reason);
});

const code = await main(process.argv);
process.exitCode = stdoutClosed.aborted ? 0 : code;
