import { Box, Text } from "ink";
import { useStore } from "zustand";
import { sessionName } from "../../../protocol/resources.js";
import { overlapLines } from "../../../store/fleet/overlaps.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { formatElapsed } from "../../../text/format.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { useNow } from "../../hooks/useNow.js";
import { describePending, isGitPending, pushTarget, repoName } from "../../model/gitActions.js";
import { pendingRepo } from "../../model/integrations.js";
import { keyOf } from "../../model/keymap.js";
import type { ConfirmDialogState, QuitDialogState } from "../../model/uiStore.js";
import { dialogInnerWidth, FramedBox } from "../frame/FramedBox.js";
import { Prose } from "../frame/Prose.js";
import { useRepoDefault } from "../integrations/useRepoDefault.js";
import { isReviewPending, ReviewConfirm } from "../review/ReviewConfirm.js";

/** "Are you sure?" for clone, push, branch and pull request (and for quitting mid-action). */

const TITLES = {
  clone: "Clone",
  push: "Push",
  branch: "Create branch",
  pr: "Open pull request",
  approve: "Approve",
  reject: "Reject",
  pause: "Pause",
  resume: "Resume",
  start: "Start",
  promptPaused: "Resume, then send",
  sendNow: "Send now",
  destroy: "Destroy (irreversible)",
  launch: "Launch",
  rename: "Rename",
  bulk: "Many at once",
} as const;

const YES = {
  clone: "clone",
  push: "push",
  branch: "create it",
  pr: "open it",
  approve: "approve",
  reject: "reject",
  pause: "pause",
  resume: "resume",
  start: "start",
  promptPaused: "resume and send",
  sendNow: "cancel it and send",
  destroy: "destroy it",
  launch: "launch",
  rename: "rename",
  bulk: "do it to each",
} as const;

export function ConfirmDialog({
  dialog,
  width,
  height,
}: {
  dialog: ConfirmDialogState | QuitDialogState;
  width: number;
  height: number;
}) {
  const { sessions, actions, overlaps } = useServices();
  const theme = useTheme();
  const sessionId = dialog.kind === "confirm" ? dialog.sessionId : null;
  const record = useStore(sessions, (s) => (sessionId ? selectRecord(s, sessionId) : undefined));
  const running = useStore(actions, (s) => s.running);
  const overlap = useStore(overlaps, (s) => (sessionId ? s.bySession.get(sessionId) : undefined));
  const now = useNow(1000, dialog.kind === "quit");
  // The repository's default branch as the code hosting app reports it (once read).
  const repoDefault = useRepoDefault(
    dialog.kind === "confirm" ? pendingRepo(dialog.action, record) : null,
  );

  const inner = dialogInnerWidth(width);
  if (dialog.kind === "quit") {
    return (
      <FramedBox
        centred
        title="Quit while a git action runs?"
        width={width}
        height={height}
        tone="warn"
      >
        <Prose
          width={inner}
          text={
            running
              ? `${running.kind} on ${running.sessionId} has been running for ${formatElapsed(now - running.startedAt)}.`
              : "The git action has just finished."
          }
        />
        <Prose
          width={inner}
          text="Quitting does not stop it on the service, but you will not see how it ends."
        />
        <Text> </Text>
        <Keys yes="quit" no="stay" />
      </FramedBox>
    );
  }
  const a = dialog.action;
  if (isReviewPending(a)) {
    return <ReviewConfirm sessionId={dialog.sessionId} action={a} width={width} height={height} />;
  }
  const git = isGitPending(a) ? a : null;
  const branch =
    git === null
      ? null
      : git.kind === "push"
        ? pushTarget(git, record)
        : git.kind === "pr"
          ? git.head
          : git.kind === "clone"
            ? git.branch
            : git.from;
  const about = describePending(a, record, repoDefault);
  const title = record ? (sessionName(record) ?? "") : "";
  return (
    <FramedBox
      centred
      title={`${a.kind === "bulk" ? `${TITLES[a.action]}: ${a.sessionIds.length} marked sessions` : TITLES[a.kind]} — confirm`}
      width={width}
      height={height}
      tone="warn"
    >
      {a.kind === "bulk" ? null : (
        <Text wrap="truncate-end">
          <Text color={theme.c.muted}>{"session     "}</Text>
          <Text bold>{dialog.sessionId}</Text>
          {title ? <Text>{`  ${title}`}</Text> : null}
        </Text>
      )}
      {a.kind === "bulk" ? null : git ? (
        <>
          <Text wrap="truncate-end">
            <Text color={theme.c.muted}>{"repository  "}</Text>
            <Text>{repoName(record) ?? "(not named by the service)"}</Text>
          </Text>
          <Text wrap="truncate-end">
            <Text color={theme.c.muted}>{"branch      "}</Text>
            <Text bold color={branch === null && git.kind === "push" ? theme.c.warn : undefined}>
              {branch ??
                (git.kind === "clone"
                  ? `(default branch${repoDefault ? ` ${repoDefault}` : ""})`
                  : git.kind === "push"
                    ? "unknown: whatever is checked out (may be main)"
                    : "(current branch)")}
            </Text>
            {git.kind === "branch" ? <Text>{` → new branch ${git.name}`}</Text> : null}
            {git.kind === "pr" ? <Text>{` → ${git.base}`}</Text> : null}
          </Text>
        </>
      ) : (
        <Text wrap="truncate-end">
          <Text color={theme.c.muted}>{"state       "}</Text>
          <Text>{record?.state ?? "—"}</Text>
        </Text>
      )}
      <Text> </Text>
      {about.lines.map((l) => (
        <Prose key={l} width={inner} text={l} />
      ))}
      {about.warning ? (
        <Prose width={inner} bold color={theme.c.warn} text={`⚠ ${about.warning}`} />
      ) : null}
      {(a.kind === "push" || a.kind === "pr") && overlap && overlap.length > 0 ? (
        <>
          <Text> </Text>
          <Text bold color={theme.c.warn}>
            ⇄ Other sessions on this repository changed the same files:
          </Text>
          {overlapLines(overlap).map((l) => (
            <Text key={l} wrap="truncate-end" color={theme.c.warn}>
              {`  ${l}`}
            </Text>
          ))}
        </>
      ) : null}
      <Text> </Text>
      <Keys yes={YES[a.kind]} no="cancel" />
    </FramedBox>
  );
}

function Keys({ yes, no }: { yes: string; no: string }) {
  const theme = useTheme();
  return (
    <Box>
      <Text>
        <Text bold color={theme.c.ok}>
          {`[${keyOf("confirmYes")}]`}
        </Text>
        <Text>{` ${yes}   `}</Text>
        <Text bold color={theme.c.error}>
          {`[${keyOf("confirmNo")}]`}
        </Text>
        <Text>{` ${no}`}</Text>
      </Text>
    </Box>
  );
}
