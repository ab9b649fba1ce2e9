import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { registerServeCommand } from "../../src/cli/definitions/serve.js";
import { api, waitFor } from "./serverTestUtils.js";

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

describe("agent-sessions serve", () => {
  it("prints the banner, writes the keys file, applies fault flags and stops cleanly", async () => {
    dir = await mkdtemp(join(tmpdir(), "serve-test-"));
    const keysFile = join(dir, "keys.json");
    let out = "";
    const errLines: string[] = [];
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const program = new Command("agent-sessions").exitOverride();
    registerServeCommand(program, {
      out: (t) => {
        out += t;
      },
      err: (l) => errLines.push(l),
      until: () => stopped,
    });
    const running = program.parseAsync([
      "node",
      "agent-sessions",
      "serve",
      "--seed",
      "5",
      "--pace-ms",
      "0",
      "--sessions",
      "3",
      "--keys-file",
      keysFile,
      "--fail-status",
      "503",
      "--fail-count",
      "1",
      "--fail-retry-after",
      "2",
      "--rate-limit",
      "50",
      "--log",
    ]);
    await waitFor(() => out.includes("Stop with Ctrl-C"), 10_000, "the banner");
    const url = /Base URL: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] as string;
    expect(url).toBeDefined();

    const keys = JSON.parse(readFileSync(keysFile, "utf8")) as { name: string; key: string }[];
    expect(keys.map((k) => k.name)).toContain("demoted");
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);
    const owner = keys.find((k) => k.name === "owner")?.key as string;
    for (const k of keys) expect(out).toContain(k.key);
    expect(out).toContain("demo/app, demo/docs");
    expect(out.match(/ses_[a-z0-9]{8}/g)?.length).toBeGreaterThanOrEqual(3);

    const first = await api(url, "/api/cloud/auth/verify", { key: owner });
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("2");
    const second = await api(url, "/api/cloud/auth/verify", { key: owner });
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-limit")).toBe("50");
    expect(
      errLines.some((l) => /^GET \/api\/cloud\/auth\/verify 200 \d+ms key=owner$/.test(l)),
    ).toBe(true);
    expect(errLines.join("\n")).not.toContain(owner);

    stop();
    await running;
    expect(errLines).toContain("serve: stopping");
    await expect(fetch(`${url}/api/sessions`)).rejects.toThrow();
  });

  it("rejects bad flag values as usage errors", async () => {
    const program = new Command("agent-sessions").exitOverride();
    program.configureOutput({ writeErr: () => undefined });
    registerServeCommand(program, { out: () => undefined, err: () => undefined });
    for (const cmd of program.commands)
      cmd.exitOverride().configureOutput({ writeErr: () => undefined });
    await expect(
      program.parseAsync(["node", "x", "serve", "--line-ending", "lfcr"]),
    ).rejects.toThrow(/Allowed choices are lf, crlf, cr/);
    await expect(program.parseAsync(["node", "x", "serve", "--port", "-1"])).rejects.toThrow(
      /port number from 0 to 65535/,
    );
    await expect(program.parseAsync(["node", "x", "serve", "--fail-status", "42"])).rejects.toThrow(
      /HTTP status code/,
    );
  });
});
