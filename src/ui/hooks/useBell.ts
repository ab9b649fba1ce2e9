import { useStdout } from "ink";
import { useEffect } from "react";
import type { StreamsStore } from "../../store/streams/streamsStore.js";

/** Ring the terminal bell (through Ink's stdout) each time a session raises attention. */
export function useBell(streams: StreamsStore, enabled: boolean): void {
  const { write } = useStdout();
  useEffect(() => {
    if (!enabled) return;
    let seen = streams.getState().attentionVersion;
    return streams.subscribe((s) => {
      if (s.attentionVersion > seen) write("\u0007");
      seen = s.attentionVersion;
    });
  }, [streams, enabled, write]);
}
