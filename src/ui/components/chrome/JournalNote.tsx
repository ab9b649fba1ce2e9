import { Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import type { JournalStatusStore } from "../../../store/history/journal.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";

/**
 * The journal's state in the header, only when it is not on: turned off by the user (muted),
 * or off because it could not write (a warning that says why). The UI works either way.
 */

function Note({ store }: { store: JournalStatusStore }) {
  const theme = useTheme();
  const s = useStore(store);
  if (s.state === "on") return null;
  if (s.state === "off") {
    return <Text color={theme.c.muted}>{" · journal off"}</Text>;
  }
  return (
    <Text color={theme.c.warn}>{` · ⚠ journal off: ${s.reason ?? "it could not write"}`}</Text>
  );
}

export const JournalNote = memo(function JournalNote() {
  const { journal } = useServices();
  return journal ? <Note store={journal} /> : null;
});
