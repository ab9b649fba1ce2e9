import { z } from "zod";

/**
 * Request and response bodies of the git endpoints. The interface says "not shown", so these
 * are this project's definition (documented in the README) and the reference service accepts
 * exactly these.
 */

/** POST /api/sessions/{id}/git/clone */
export const CloneRequestSchema = z.object({
  repo_url: z.string().min(1, "repo_url is required"),
  branch: z.string().min(1).optional(),
});
export type CloneRequest = z.infer<typeof CloneRequestSchema>;

/** POST /api/sessions/{id}/git/operation */
export const GitOperationRequestSchema = z.discriminatedUnion("operation", [
  z.object({ operation: z.literal("push"), branch: z.string().min(1).optional() }),
  z.object({
    operation: z.literal("create_branch"),
    name: z.string().min(1, "name is required"),
    from: z.string().min(1).optional(),
  }),
  z.object({
    operation: z.literal("create_pull_request"),
    title: z.string().min(1, "title is required"),
    base: z.string().min(1).optional(),
    head: z.string().min(1).optional(),
    body: z.string().optional(),
  }),
]);
export type GitOperationRequest = z.infer<typeof GitOperationRequestSchema>;
export type GitOperationName = GitOperationRequest["operation"];

/** Response of both git endpoints (lenient: unknown fields kept). */
export const GitResultSchema = z.looseObject({
  ok: z.boolean(),
  operation: z.string(),
  session_id: z.string().optional(),
  branch: z.string().nullable().optional(),
  commit: z.string().nullable().optional(),
  output: z.string().optional(),
  pull_request: z
    .looseObject({ number: z.number(), title: z.string(), base: z.string(), head: z.string() })
    .nullable()
    .optional(),
});
export type GitResult = z.infer<typeof GitResultSchema>;
