import { useStore } from "zustand";
import { useServices } from "../../context/servicesContext.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { FormDialog } from "./FormDialog.js";

export function BranchDialog({
  dialog,
  width,
  height,
}: {
  dialog: FormDialogState;
  width: number;
  height: number;
}) {
  const { sessions } = useServices();
  const branch = useStore(
    sessions,
    (s) => s.items.find((x) => x.session_id === dialog.sessionId)?.branch ?? null,
  );
  return (
    <FormDialog
      dialog={dialog}
      title={`Create a branch in ${dialog.sessionId}`}
      lines={[
        `Starts from ${branch ? `branch ${branch}` : "the current branch"} and switches to it.`,
        "You confirm before anything runs.",
      ]}
      width={width}
      height={height}
    />
  );
}
