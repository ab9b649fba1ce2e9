import { Box, Text } from "ink";
import { useStore } from "zustand";
import { selectRecord } from "../../../store/sessionsStore.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { FORM_FIELDS, fieldPlaceholder, formIntro, repoName } from "../../model/gitActions.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { TextInput } from "../chrome/TextInput.js";
import { CloneSuggestions } from "../integrations/CloneSuggestions.js";
import { useRepoDefault } from "../integrations/useRepoDefault.js";
import { DialogFrame, dialogInnerWidth } from "./DialogFrame.js";

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
  const { sessions } = useServices();
  const record = useStore(sessions, (s) => selectRecord(s, dialog.sessionId));
  const repoDefault = useRepoDefault(repoName(record));
  const { title, lines } = formIntro(dialog.form, dialog.sessionId, record, {
    ...(dialog.approval ? { approval: dialog.approval } : {}),
    repoDefault,
  });
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
      <CloneSuggestions dialog={dialog} />
      {dialog.error ? (
        <Text color={theme.c.error} wrap="truncate-end">
          ✗ {dialog.error}
        </Text>
      ) : null}
    </DialogFrame>
  );
}
