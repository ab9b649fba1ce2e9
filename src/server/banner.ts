import { isLoopbackHost } from "../protocol/loopback.js";
import { CLOCK_CONTROL_PATH } from "./http/clockControl.js";
import type { SessionRecord } from "./sessionTable.js";

/** What the banner tells of a running reference service (`ReferenceServer` has all of it). */
export interface BannerFacts {
  readonly url: string;
  readonly keys: readonly {
    name: string;
    key: string;
    role: string | null;
    demonstrates: string;
  }[];
  key(name: string): string;
  sessionIds(): readonly string[];
  sessions(): readonly Pick<SessionRecord, "id" | "state" | "agent" | "repo" | "name">[];
  readonly repositories: readonly string[];
  /** The simulator's clock: manual when a test or a demo steps it. */
  readonly clock: { readonly manual: boolean };
}

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/**
 * The start-up text of `agent-sessions serve`: where the service is and the demo keys to use.
 * Printing keys is the point here: they are throwaway keys of a loopback test service.
 */
export function formatBanner(server: BannerFacts): string {
  const lines: string[] = [];
  const warning = exposureWarning(server);
  if (warning === null) {
    lines.push(
      "Agent Sessions reference service (loopback, demo data; nothing leaves this machine)",
    );
  } else {
    lines.push("Agent Sessions reference service (demo data)");
    lines.push(`WARNING: ${warning}`);
  }
  lines.push("");
  lines.push(`Base URL: ${server.url}`);
  lines.push("");
  lines.push("Demo keys:");
  const rows = [["name", "role", "key", "demonstrates"]];
  for (const k of server.keys) rows.push([k.name, k.role ?? "-", k.key, k.demonstrates]);
  lines.push(...table(rows).map((l) => `  ${l}`));
  lines.push("");
  lines.push(
    `Repositories (clone by name, name.git, or any URL ending in /name): ${server.repositories.join(", ")}`,
  );
  lines.push("");
  lines.push("Sessions:");
  const sessionRows = server.sessions().map((s) => [s.id, s.state, s.agent, s.repo ?? "-", s.name]);
  lines.push(...table(sessionRows).map((l) => `  ${l}`));
  lines.push("");
  if (server.clock.manual) {
    lines.push(
      `Simulator clock: manual. Sessions change only when it is stepped, from this machine: POST ${server.url}${CLOCK_CONTROL_PATH} {"ms": N}`,
    );
    lines.push("");
  }
  lines.push("Try:");
  lines.push(`  export AGENT_SESSIONS_BASE_URL=${server.url}`);
  lines.push(`  export AGENT_SESSIONS_API_KEY=${server.key("owner")}`);
  const first = server.sessionIds()[0];
  if (first) lines.push(`  agent-sessions watch ${first}`);
  lines.push("");
  lines.push("Stop with Ctrl-C.");
  return `${lines.join("\n")}\n`;
}

/**
 * Null when the service listens on loopback only. Otherwise what that exposes: the demo keys
 * printed here grant owner access (git workspaces included) to anyone who can reach the port,
 * over plain http.
 */
export function exposureWarning(server: Pick<BannerFacts, "url">): string | null {
  const host = new URL(server.url).hostname;
  if (isLoopbackHost(host)) return null;
  return `listening on ${host}, not loopback: other machines can reach this service, and the demo keys below (owner access, git workspaces included) work for anyone who can, over plain http`;
}
