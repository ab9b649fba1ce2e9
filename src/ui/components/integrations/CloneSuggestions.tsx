import { Text } from "ink";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { NO_INTEGRATIONS } from "../../../store/integrations/integrationsStore.js";
import { repoLine } from "../../../store/integrations/integrationsText.js";
import { repoSuggestions, suggestionsNote } from "../../../store/integrations/reach.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { REPO_FIELD } from "../../model/gitActions.js";
import { CLONE_SUGGESTIONS } from "../../model/integrations.js";
import { commandById, keyLabel, keyOf } from "../../model/keymap.js";
import type { FormDialogState } from "../../model/uiStore.js";

/** A command's named key (an arrow): its letters would be typed into the field. */
function arrowOf(id: "up" | "down"): string {
  const named = commandById(id).keys.find((k) => k.name !== undefined);
  return named ? keyLabel(named) : keyOf(id);
}

/**
 * Under the clone (and launch) form's repository field: the repositories the code hosting app reaches that
 * match what is typed, with their default branches (↑/↓ pick, Tab takes one), or why there
 * are none to offer.
 */
export function CloneSuggestions({ dialog }: { dialog: FormDialogState }) {
  const theme = useTheme();
  const { integrations } = useServices();
  const { report, loading } = useStore(
    integrations ?? NO_INTEGRATIONS,
    useShallow((s) => ({ report: s.report, loading: s.loading })),
  );
  const field = REPO_FIELD[dialog.form];
  if (field === undefined) return null;
  const suggestions =
    dialog.field === field
      ? repoSuggestions(report, dialog.values[field] ?? "", CLONE_SUGGESTIONS)
      : [];
  const note = suggestionsNote(report, loading);
  const pick = dialog.pick ?? 0;
  return (
    <>
      {suggestions.length > 0 ? (
        <>
          <Text> </Text>
          <Text color={theme.c.muted} wrap="truncate-end">
            {`Repositories the code hosting app reaches (${arrowOf("up")}/${arrowOf("down")} pick, ${keyOf("nextField")} takes it):`}
          </Text>
          {suggestions.map((r, i) => (
            <Text
              key={r.repo.full_name}
              wrap="truncate-end"
              bold={i === pick}
              color={i === pick ? theme.c.accent : undefined}
            >
              {`${i === pick ? "▸" : " "} ${repoLine(r.repo)}`}
            </Text>
          ))}
        </>
      ) : null}
      {note ? (
        <Text color={theme.c.muted} wrap="truncate-end">
          {note}
        </Text>
      ) : null}
    </>
  );
}
