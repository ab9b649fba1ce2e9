import { useStdout } from "ink";
import { useEffect } from "react";
import { sessionName } from "../../protocol/resources.js";
import type { AttentionStore } from "../../store/attention/attentionStore.js";
import type { SessionsStore } from "../../store/sessionsStore.js";
import { selectRecord } from "../../store/sessionsStore.js";
import { Notifier, type NotifyPolicy } from "../model/notifier.js";

/**
 * Tell the user (through `out`, else Ink's stdout) when sessions start needing them: the bell and/or a
 * desktop notification, at most one per session per transition, coalesced (model/notifier.ts).
 */
export function useNotifier(
  attention: AttentionStore,
  sessions: SessionsStore,
  policy: NotifyPolicy,
  out?: (data: string) => void,
): void {
  const { write: inkWrite } = useStdout();
  const write = out ?? inkWrite;
  const { bell, osc, oscKind, tmux } = policy;
  useEffect(() => {
    const n = new Notifier({
      attention,
      policy: { bell, osc, oscKind, tmux },
      write,
      nameOf: (id) => {
        // The list's record, else one read on its own (a pane's, or one the list now hides).
        const r = selectRecord(sessions.getState(), id);
        return r ? sessionName(r) : null;
      },
    });
    n.start();
    return () => n.stop();
  }, [attention, sessions, bell, osc, oscKind, tmux, write]);
}
