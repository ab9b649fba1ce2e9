import { useStore } from "zustand";
import { useServices } from "../../context/servicesContext.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { FormDialog } from "./FormDialog.js";

export function PullRequestDialog({
  dialog,
  width,
  height,
}: {
  dialog: FormDialogState;
  width: number;
  height: number;
}) {
  const { sessions } = useServices();
  const record = useStore(sessions, (s) => s.items.find((x) => x.session_id === dialog.sessionId));
  const head = record?.branch ?? null;
  const repo = record?.repo ?? null;
  return (
    <FormDialog
      dialog={dialog}
      title={`Open a pull request from ${dialog.sessionId}`}
      lines={[
        `Head: ${head ? `branch ${head}` : "the current branch"}${repo ? ` of ${repo}` : ""}; base defaults to main.`,
        "You confirm before anything is sent.",
      ]}
      width={width}
      height={height}
    />
  );
}
