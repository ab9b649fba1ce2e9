#!/usr/bin/env node
import { reportError } from "./output.js";
import { main } from "./program.js";

// React (loaded lazily with the UI) must run its production build: the development build
// costs about a quarter of the frame rate (see the Performance section of the README).
process.env.NODE_ENV ??= "production";

process.on("unhandledRejection", (reason) => {
  process.exitCode = reportError(reason);
});

process.exitCode = await main(process.argv);
