import { Box, Text } from "ink";
import { useStore } from "zustand";
import { NO_INTEGRATIONS } from "../../../store/integrations/integrationsStore.js";
import { repoLine } from "../../../store/integrations/integrationsText.js";
import {
  repoDefaultBranch,
  repoSuggestions,
  suggestionsNote,
} from "../../../store/integrations/reach.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { FORM_FIELDS, fieldPlaceholder, formIntro, repoName } from "../../model/gitActions.js";
import { CLONE_SUGGESTIONS } from "../../model/integrations.js";
import { commandById, keyLabel, keyOf } from "../../model/keymap.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { TextInput } from "../chrome/TextInput.js";
import { DialogFrame, dialogInnerWidth } from "./DialogFrame.js";

/** A command's named key (an arrow): its letters would be typed into the field. */
function arrowOf(id: "up" | "down"): string {
  const named = commandById(id).keys.find((k) => k.name !== undefined);
  return named ? keyLabel(named) : keyOf(id);
}

/** The clone, branch and pull-request forms: what the form does, then its fields. */
export function FormDialog({
  dialog,
  width,
  height,
}: {
  dialog: FormDialogState;
  width: number;
  height: number;
}) {
  const theme = useTheme();
  const { sessions, integrations } = useServices();
  const record = useStore(sessions, (s) => selectRecord(s, dialog.sessionId));
  const reach = useStore(integrations ?? NO_INTEGRATIONS, (s) => s.report);
  const reading = useStore(integrations ?? NO_INTEGRATIONS, (s) => s.loading);
  const { title, lines } = formIntro(dialog.form, dialog.sessionId, record, {
    ...(dialog.approval ? { approval: dialog.approval } : {}),
    repoDefault: repoDefaultBranch(reach, repoName(record)),
  });
  const clone = dialog.form === "clone";
  const suggestions = clone
    ? repoSuggestions(reach, dialog.values[0] ?? "", CLONE_SUGGESTIONS)
    : [];
  const note = clone ? suggestionsNote(reach, reading) : null;
  const pick = dialog.pick ?? 0;
  const fields = FORM_FIELDS[dialog.form];
  const inner = dialogInnerWidth(width);
  const labelWidth = Math.max(...fields.map((f) => f.label.length)) + 2;
  return (
    <DialogFrame title={title} width={width} height={height}>
      {lines.map((l) => (
        <Text key={l} wrap="wrap" color={theme.c.muted}>
          {l}
        </Text>
      ))}
      <Text> </Text>
      {fields.map((f, i) => {
        const focused = i === dialog.field;
        return (
          <Box key={f.label} height={1}>
            <Text bold={focused} color={focused ? theme.c.accent : undefined}>
              {`${focused ? "▸" : " "} ${f.label}${f.required ? "" : " (optional)"}`.padEnd(
                labelWidth + 12,
              )}
            </Text>
            <TextInput
              value={dialog.values[i] ?? ""}
              focus={focused}
              placeholder={fieldPlaceholder(dialog.form, i, record)}
              width={Math.max(8, inner - labelWidth - 12)}
            />
          </Box>
        );
      })}
      {clone && dialog.field === 0 && suggestions.length > 0 ? (
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
      {clone && note ? (
        <Text color={theme.c.muted} wrap="truncate-end">
          {note}
        </Text>
      ) : null}
      {dialog.error ? (
        <Text color={theme.c.error} wrap="truncate-end">
          ✗ {dialog.error}
        </Text>
      ) : null}
    </DialogFrame>
  );
}
