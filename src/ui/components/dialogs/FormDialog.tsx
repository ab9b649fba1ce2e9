import { Box, Text } from "ink";
import { useStore } from "zustand";
import { describeApproval } from "../../../store/act/approvalDecision.js";
import { pendingCutNote } from "../../../store/approvals/approvalsBook.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { sanitizeLine } from "../../../text/sanitize.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { useApprovalsEntry } from "../../hooks/useApprovals.js";
import { FORM_FIELDS, fieldPlaceholder, formIntro, repoName } from "../../model/gitActions.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { FormFields } from "../frame/FormFields.js";
import { dialogInnerWidth, FramedBox } from "../frame/FramedBox.js";
import { Prose } from "../frame/Prose.js";
import { scrollWindow } from "../frame/ScrollList.js";
import { CloneSuggestions } from "../integrations/CloneSuggestions.js";
import { useRepoDefault } from "../integrations/useRepoDefault.js";

/** Pending approvals listed at once in the form; the others are counted, ↑/↓ reaches them. */
const CHOICES_SHOWN = 6;

/**
 * An approve or reject form with several pending approvals: each one whole (kind, message,
 * who may decide, since when, its id), the picked one marked; ↑/↓ picks another.
 */
function ApprovalChoices({ dialog, width }: { dialog: FormDialogState; width: number }) {
  const theme = useTheme();
  const list = dialog.approvals ?? [];
  // A list cut at the book's bound says that more are pending than it offers.
  const cut = pendingCutNote(useApprovalsEntry(dialog.sessionId));
  if (list.length < 2 && (cut === null || list.length === 0)) return null;
  // Each choice whole, a window of them around the picked one: hundreds would run off the box.
  const pick = dialog.pick ?? 0;
  const { from, shown } =
    list.length > 1 ? scrollWindow(list, CHOICES_SHOWN, pick - 2) : { from: 0, shown: [] };
  const below = list.length > 1 ? list.length - from - shown.length : 0;
  return (
    <Box flexDirection="column" marginTop={1}>
      {cut !== null && <Prose width={width} color={theme.c.warn} text={cut} />}
      {from > 0 && <Text color={theme.c.muted}>{`  … ${from} more above`}</Text>}
      {shown.map((a, k) => {
        const on = from + k === pick;
        return (
          <Prose
            key={a.id}
            width={width}
            bold={on}
            color={on ? theme.c.accent : theme.c.muted}
            text={`${on ? "▸" : " "} ${sanitizeLine(a.id)}: ${describeApproval(a)}`}
          />
        );
      })}
      {below > 0 && <Text color={theme.c.muted}>{`  … ${below} more below (↑/↓ picks)`}</Text>}
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
  const labelWidth = Math.max(...fields.map((f) => f.label.length)) + 2;
  return (
    <FramedBox title={title} width={width} height={height} centred>
      {lines.map((l) => (
        <Prose key={l} width={dialogInnerWidth(width)} color={theme.c.muted} text={l} />
      ))}
      <Text> </Text>
      <FormFields
        fields={fields.map((f, i) => ({
          label: `${f.label}${f.required ? "" : " (optional)"}`,
          placeholder: fieldPlaceholder(dialog.form, i, record),
        }))}
        values={dialog.values}
        focus={dialog.field}
        width={dialogInnerWidth(width)}
        // Room for the longest label with " (optional)" after it.
        labelColumn={labelWidth + 12}
        error={dialog.error}
      >
        <ApprovalChoices dialog={dialog} width={dialogInnerWidth(width)} />
        <CloneSuggestions dialog={dialog} />
      </FormFields>
    </FramedBox>
  );
}
