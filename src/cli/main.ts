#!/usr/bin/env node
import { reportError } from "./output.js";
import { main } from "./program.js";

process.on("unhandledRejection", (reason) => {
  process.exitCode = reportError(reason);
});

process.exitCode = await main(process.argv);
