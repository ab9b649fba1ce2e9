import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A session bus of a test's own with nothing on it: no Secret Service, and no service
 * folders either, so asking for one cannot start a keyring daemon by activation (one started
 * that way would outlive the bus and the test). Stopped by `stop()`, its folder removed.
 */

export const hasDbusDaemon =
  process.platform === "linux" && spawnSync("dbus-daemon", ["--version"]).status === 0;

export interface BareBus {
  /** For DBUS_SESSION_BUS_ADDRESS. */
  address: string;
  stop(): Promise<void>;
}

export async function startBareBus(): Promise<BareBus> {
  const dir = mkdtempSync(join(tmpdir(), "as-bus-"));
  const config = join(dir, "bus.conf");
  const address = `unix:path=${join(dir, "bus")}`;
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>${address}</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
  );
  const child: ChildProcess = spawn(
    "dbus-daemon",
    ["--nofork", "--print-address=1", `--config-file=${config}`],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once it prints its address (bounded).
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 5000);
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      if (d.includes("unix:")) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!ready) {
    await stop();
    throw new Error("dbus-daemon did not start");
  }
  return { address, stop };
}
