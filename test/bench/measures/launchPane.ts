import { performance } from "node:perf_hooks";
import { median } from "../proc.js";
import type { RemoteServer } from "../serverProcess.js";
import { mountUi } from "../uiMount.js";

export interface LaunchPaneResult {
  runs: number;
  /** Median ms from the launch's 201 to its pane's stream live. */
  medianMs: number;
  maxMs: number;
}

/**
 * B18: the UI mounted as the CLI runs it; + opens the launch form, a prompt is typed and
 * Enter sends it. From the moment the launch's 201 is read (the client's launch resolving)
 * to the new session's pane live: its pane open and its event stream connected (the status
 * the pane shows is drawn at the next frame, at most 1000/MAX_FPS ms later).
 * The service's own provisioning (creating → running) is not in it: the pane is live while
 * the session is still being created.
 */
export async function measureLaunchPane(
  srv: RemoteServer,
  runs: number,
): Promise<LaunchPaneResult> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ui = await mountUi({
      url: srv.url,
      key: srv.ownerKey,
      sessions: [],
      columns: 200,
      rows: 50,
    });
    try {
      const work = ui.services.work;
      if (!work) throw new Error("the UI has no launch service");
      let answeredAt: number | null = null;
      let launchedId: string | null = null;
      const launch = work.launch.bind(work);
      work.launch = async (req, opts) => {
        const answer = await launch(req, opts);
        answeredAt = performance.now();
        launchedId = answer.id;
        return answer;
      };
      await waitFor(() => ui.services.sessions.getState().items.length > 0, "the list");
      ui.keyboard.write("+");
      await new Promise((r) => setTimeout(r, 50));
      ui.keyboard.write(`Bench launch ${i}`);
      await new Promise((r) => setTimeout(r, 20));
      ui.keyboard.write("\r");
      await waitFor(() => launchedId !== null, "the launch's answer");
      const id = launchedId as unknown as string;
      await waitFor(
        () => ui.services.streams.getState().sessions[id]?.status.state === "live",
        "the new pane's stream",
      );
      times.push(performance.now() - (answeredAt as unknown as number));
    } finally {
      await ui.unmount();
    }
  }
  return { runs, medianMs: median(times), maxMs: Math.max(...times) };
}

/** Polls cond every 2 ms; bounded (10 s). */
async function waitFor(cond: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`no ${what} within 10 s`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
