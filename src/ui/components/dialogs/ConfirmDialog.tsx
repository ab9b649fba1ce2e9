import { Box, Text } from "ink";
import { useStore } from "zustand";
import { sessionName } from "../../../protocol/resources.js";
import { sessionRepo } from "../../../protocol/sessionRecord.js";
import { overlapLines } from "../../../store/fleet/overlaps.js";
import { selectRecord } from "../../../store/sessionsStore.js";
import { formatElapsed } from "../../../text/format.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { useNow } from "../../hooks/useNow.js";
import { describePending, pushTarget } from "../../model/gitActions.js";
import { keyOf } from "../../model/keymap.js";
import type { ConfirmDialogState, QuitDialogState } from "../../model/uiStore.js";
import { DialogFrame } from "./DialogFrame.js";

/** "Are you sure?" for clone, push, branch and pull request (and for quitting mid-action). */

const TITLES = {
  clone: "Clone",
  push: "Push",
  branch: "Create branch",
  pr: "Open pull request",
} as const;

const YES = { clone: "clone", push: "push", branch: "create it", pr: "open it" } as const;

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

  if (dialog.kind === "quit") {
    return (
      <DialogFrame title="Quit while a git action runs?" width={width} height={height} tone="warn">
        <Text wrap="wrap">
          {running
            ? `${running.kind} on ${running.sessionId} has been running for ${formatElapsed(now - running.startedAt)}.`
            : "The git action has just finished."}
        </Text>
        <Text wrap="wrap">
          Quitting does not stop it on the service, but you will not see how it ends.
        </Text>
        <Text> </Text>
        <Keys yes="quit" no="stay" />
      </DialogFrame>
    );
  }
  const a = dialog.action;
  const branch =
    a.kind === "push"
      ? pushTarget(a, record)
      : a.kind === "pr"
        ? a.head
        : a.kind === "clone"
          ? a.branch
          : a.from;
  const about = describePending(a, record);
  const title = record ? (sessionName(record) ?? "") : "";
  return (
    <DialogFrame title={`${TITLES[a.kind]} — confirm`} width={width} height={height} tone="warn">
      <Text wrap="truncate-end">
        <Text color={theme.c.muted}>{"session     "}</Text>
        <Text bold>{dialog.sessionId}</Text>
        {title ? <Text>{`  ${title}`}</Text> : null}
      </Text>
      <Text wrap="truncate-end">
        <Text color={theme.c.muted}>{"repository  "}</Text>
        <Text>{(record ? sessionRepo(record) : null) ?? "—"}</Text>
      </Text>
      <Text wrap="truncate-end">
        <Text color={theme.c.muted}>{"branch      "}</Text>
        <Text bold>{branch ?? (a.kind === "clone" ? "(default branch)" : "(current branch)")}</Text>
        {a.kind === "branch" ? <Text>{` → new branch ${a.name}`}</Text> : null}
        {a.kind === "pr" ? <Text>{` → ${a.base}`}</Text> : null}
      </Text>
      <Text> </Text>
      {about.lines.map((l) => (
        <Text key={l} wrap="wrap">
          {l}
        </Text>
      ))}
      {about.warning ? (
        <Text wrap="wrap" bold color={theme.c.warn}>
          {`⚠ ${about.warning}`}
        </Text>
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
    </DialogFrame>
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
