import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * The one zod the project uses, for the client's reading of answers and the reference
 * service's reading of requests: zod's tree-shakable build (zod/mini). The bundle then holds
 * only the checks used, tens of KB instead of the classic build's ~450 KB, which every start
 * would otherwise compile. Its messages are the classic build's English ones. Import it as a
 * namespace (`import * as z from "…/schema.js"`) so the bundler can leave out what is unused.
 */
config(en());

export * from "zod/mini";
export { $ZodError as SchemaError } from "zod/v4/core";
