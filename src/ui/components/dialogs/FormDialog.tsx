import { Box, Text } from "ink";
import { useStore } from "zustand";
import { describeApproval } from "../../../store/act/approvalDecision.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { sanitizeLine } from "../../../text/sanitize.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { FORM_FIELDS, fieldPlaceholder, formIntro, repoName } from "../../model/gitActions.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { TextInput } from "../chrome/TextInput.js";
import { CloneSuggestions } from "../integrations/CloneSuggestions.js";
import { useRepoDefault } from "../integrations/useRepoDefault.js";
import { DialogFrame, dialogInnerWidth } from "./DialogFrame.js";

/**
 * An approve or reject form with several pending approvals: each one whole (kind, message,
 * who may decide, since when, its id), the picked one marked; ↑/↓ picks another.
 */
function ApprovalChoices({ dialog }: { dialog: FormDialogState }) {
  const theme = useTheme();
  const list = dialog.approvals ?? [];
  if (list.length < 2) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      {list.map((a, i) => {
        const on = i === (dialog.pick ?? 0);
        return (
          <Text key={a.id} wrap="wrap" bold={on} color={on ? theme.c.accent : theme.c.muted}>
            {`${on ? "▸" : " "} ${sanitizeLine(a.id)}: ${describeApproval(a)}`}
          </Text>
        );
      })}
    </Box>
  );
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
  const { sessions } = useServices();
  const record = useStore(sessions, (s) => selectRecord(s, dialog.sessionId));
  const repoDefault = useRepoDefault(repoName(record));
  const { title, lines } = formIntro(dialog.form, dialog.sessionId, record, {
    ...(dialog.approval ? { approval: dialog.approval } : {}),
    ...((dialog.approvals?.length ?? 0) > 1 ? { several: dialog.approvals?.length } : {}),
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
      <ApprovalChoices dialog={dialog} />
      <CloneSuggestions dialog={dialog} />
      {dialog.error ? (
        <Text color={theme.c.error} wrap="truncate-end">
          ✗ {dialog.error}
        </Text>
      ) : null}
    </DialogFrame>
  );
}
