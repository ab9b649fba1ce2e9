// undici's files below its index, which the client imports one by one (src/client/transport.ts
// says why). They have no declarations of their own: these are the index's types.
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";

  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  import type { Dispatcher } from "undici";

  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module "undici/lib/api/index.js" {
  const api: Record<string, unknown>;
  export default api;
}
