import type { FormDialogState } from "../../model/uiStore.js";
import { FormDialog } from "./FormDialog.js";

export function CloneDialog({
  dialog,
  width,
  height,
}: {
  dialog: FormDialogState;
  width: number;
  height: number;
}) {
  return (
    <FormDialog
      dialog={dialog}
      title={`Clone a repository into ${dialog.sessionId}`}
      lines={[
        "The service clones it into the session's workspace (replacing any earlier clone).",
        "Git's output also appears in the session's pane.",
      ]}
      width={width}
      height={height}
    />
  );
}
