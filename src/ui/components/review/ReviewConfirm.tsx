import { Box, Text } from "ink";
import { useEffect, useState } from "react";
import { useStore } from "zustand";
import { selectRecord } from "../../../store/sessionsStore.js";
import { sanitizeLine } from "../../../text/sanitize.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { keyOf } from "../../model/keymap.js";
import type { PendingAction } from "../../model/uiStore.js";
import { dialogInnerWidth, FramedBox } from "../frame/FramedBox.js";
import { Prose } from "../frame/Prose.js";

/**
 * The review confirmations: taking the changes home (naming the local repository, its branch
 * and the files), rewinding the last prompt (the files it reverts), and resuming a paused
 * session before a review key does what it was pressed for.
 */

type ReviewPending = Extract<PendingAction, { kind: "takeHome" | "rewind" | "resumeFirst" }>;

export function isReviewPending(a: PendingAction): a is ReviewPending {
  return a.kind === "takeHome" || a.kind === "rewind" || a.kind === "resumeFirst";
}

/** Files listed in a confirmation before "and N more". */
const LISTED = 12;

const THEN = {
  changes: "then opens its changes",
  files: "then opens its files",
  takeHome: "then asks about taking its changes home",
  rewind: "then asks about rewinding its last prompt",
} as const;

type Where = { root: string; branch: string | null } | { error: string } | null;

export function ReviewConfirm({
  sessionId,
  action: a,
  width,
  height,
}: {
  sessionId: string;
  action: ReviewPending;
  width: number;
  height: number;
}) {
  const { review, sessions, secrets } = useServices();
  const theme = useTheme();
  const record = useStore(sessions, (s) => selectRecord(s, sessionId));
  const [where, setWhere] = useState<Where>(null);
  const home = review?.home ?? null;
  const asksHome = a.kind === "takeHome";
  useEffect(() => {
    if (!asksHome) return;
    let live = true;
    if (!home) setWhere({ error: "no local git checkout is reachable here" });
    else void home.where().then((w) => live && setWhere(w));
    return () => {
      live = false;
    };
  }, [asksHome, home]);

  const mask = (t: string) => (secrets ? secrets.redact(t) : t);
  const inner = dialogInnerWidth(width);
  const files = (list: readonly string[]) => (
    <>
      {list.slice(0, LISTED).map((f) => (
        <Text key={f} wrap="truncate-end">{`  ${mask(sanitizeLine(f))}`}</Text>
      ))}
      {list.length > LISTED ? (
        <Text color={theme.c.muted}>{`  … and ${list.length - LISTED} more`}</Text>
      ) : null}
    </>
  );
  const keys = (yes: string, extra?: string) => (
    <Box>
      <Text>
        <Text bold color={theme.c.ok}>{`[${keyOf("confirmYes")}]`}</Text>
        <Text>{` ${yes}   `}</Text>
        <Text bold color={theme.c.error}>{`[${keyOf("confirmNo")}]`}</Text>
        <Text>{" cancel"}</Text>
        {extra ? (
          <Text color={theme.c.muted}>{`   [${keyOf("takeHomeSwitch")}] ${extra}`}</Text>
        ) : null}
      </Text>
    </Box>
  );
  const session = (
    <Text wrap="truncate-end">
      <Text color={theme.c.muted}>{"session     "}</Text>
      <Text bold>{sessionId}</Text>
    </Text>
  );

  if (a.kind === "resumeFirst") {
    return (
      <FramedBox centred title="Paused — resume first?" width={width} height={height} tone="warn">
        {session}
        <Text> </Text>
        <Prose
          width={inner}
          text={`The session is paused: its workspace answers nothing until it runs. Resume it (POST …/resume), ${THEN[a.then]}.`}
        />
        <Text> </Text>
        {keys("resume")}
      </FramedBox>
    );
  }
  if (a.kind === "rewind") {
    return (
      <FramedBox
        centred
        title="Rewind the last prompt — confirm"
        width={width}
        height={height}
        tone="warn"
      >
        {session}
        <Text> </Text>
        <Prose
          width={inner}
          text="Undoes the session's last prompt and reverts the files it changed in the session's workspace:"
        />
        {a.files.length > 0 ? (
          files(a.files)
        ) : (
          <Text color={theme.c.muted}>
            {" "}
            (no changed file known here: the service says what it reverted)
          </Text>
        )}
        <Text> </Text>
        {keys("rewind")}
      </FramedBox>
    );
  }
  const branch = record && home ? home.branchOf(record) : null;
  const local =
    where === null
      ? "reading…"
      : "error" in where
        ? where.error
        : `${where.root}${where.branch ? ` (on ${where.branch})` : " (detached)"}`;
  const apply = a.how === "apply";
  return (
    <FramedBox
      centred
      title="Take the changes home — confirm"
      width={width}
      height={height}
      tone="warn"
    >
      {session}
      <Text wrap="truncate-end">
        <Text color={theme.c.muted}>{"local repo  "}</Text>
        <Text bold color={where && "error" in where ? theme.c.error : undefined}>
          {local}
        </Text>
      </Text>
      <Text> </Text>
      {apply ? (
        <>
          <Prose
            width={inner}
            text={`Applies the session's diff to this checkout, after a preflight (git apply --check): nothing is applied if any file conflicts. ${a.files.length} file${a.files.length === 1 ? "" : "s"}:`}
          />
          {files(a.files)}
        </>
      ) : (
        <Prose
          width={inner}
          text={
            branch
              ? `Fetches the branch the session pushed, ${branch}, into a local branch of the same name.`
              : "Fetches the branch the session pushed into a local branch of the same name (the service does not name it: the checkout says what to do)."
          }
        />
      )}
      <Text> </Text>
      {keys(
        apply ? "apply" : "check out",
        apply ? "check out its branch instead" : "apply its diff instead",
      )}
    </FramedBox>
  );
}
