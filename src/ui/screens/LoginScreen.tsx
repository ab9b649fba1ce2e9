import { Box, Text } from "ink";
import { useLayoutEffect, useMemo, useState } from "react";
import { useStore } from "zustand";
import { Centered } from "../components/chrome/Centered.js";
import { TextInput } from "../components/chrome/TextInput.js";
import { Prose } from "../components/frame/Prose.js";
import { useTheme } from "../context/theme.js";
import { useKeyTarget } from "../hooks/useKeyInput.js";
import { loginTarget } from "../input/handlers/login.js";
import { commandById, keysLabel } from "../model/keymap.js";
import { isTooSmall, type TerminalSize } from "../model/layout.js";
import { createLoginStore, type KeyStorage, type Problem } from "../model/login.js";
import { TooSmall } from "./TooSmall.js";

/**
 * No key yet, or the service refused the one there was: paste one (never shown, only
 * counted), verify it with the service, keep it. The verifying and storing is the caller's
 * (`onLogin`); this screen only collects the key, asks where it goes when no keychain can
 * keep it, and shows how it went. Its keys are input/handlers/login.ts.
 */

export interface LoginScreenProps {
  profile: string;
  baseUrl: string;
  size: TerminalSize;
  /** Verify the key and keep it where asked; rejects with a message to show when it cannot. */
  onLogin: (key: string, storage: KeyStorage) => Promise<void>;
  onExit: () => void;
  /** No keychain to keep the key in: why, and the ways out. */
  keychainProblem?: Problem | null;
  /** The service refused the key the UI started with: its words and the way out. */
  refusal?: Problem | null;
  /** Where `f` (the plain-text choice) would write the key, to say so before it is chosen. */
  keyFile?: string | null;
}

export function LoginScreen({
  profile,
  baseUrl,
  size,
  onLogin,
  onExit,
  keychainProblem = null,
  refusal = null,
  keyFile = null,
}: LoginScreenProps) {
  const theme = useTheme();
  const [login] = useState(() => createLoginStore(size));
  const target = useMemo(
    () => loginTarget({ login, onLogin, exit: onExit, keychainProblem }),
    [login, onLogin, onExit, keychainProblem],
  );
  useKeyTarget(target);
  useLayoutEffect(() => {
    login.setState({ size });
  }, [login, size]);
  const { value, phase } = useStore(login);
  const busy = phase.kind === "verifying";

  if (isTooSmall(size)) return <TooSmall size={size} />;

  const width = Math.min(size.columns, 76);
  // Inside the border and the padding.
  const inner = width - 4;
  const count = Array.from(value).length;
  return (
    <Centered size={size}>
      <Box
        width={width}
        flexDirection="column"
        borderStyle="round"
        borderColor={theme.c.accent}
        paddingX={1}
      >
        <Text bold color={theme.c.accent}>
          agent-sessions — sign in
        </Text>
        <Text wrap="truncate-end">{`profile: ${profile} · ${baseUrl}`}</Text>
        <Text> </Text>
        {refusal ? (
          <>
            <Prose width={inner} color={theme.c.error} text={`✗ ${refusal.message}`} />
            {refusal.hint ? <Prose width={inner} text={refusal.hint} /> : null}
          </>
        ) : (
          <Prose
            width={inner}
            text={
              keychainProblem
                ? "No API key is stored for this profile. Paste one and press Enter: it is verified with the service, then you choose where it is kept. It is never shown."
                : "No API key is stored for this profile. Paste one and press Enter: it is verified with the service, then kept in the OS keychain. It is never shown."
            }
          />
        )}
        {keychainProblem && phase.kind !== "choosing" ? (
          <>
            <Text> </Text>
            <Prose
              width={inner}
              color={theme.c.warn}
              text={`⚠ No keychain here: ${keychainProblem.message}`}
            />
            {keychainProblem.hint ? <Prose width={inner} text={keychainProblem.hint} /> : null}
          </>
        ) : null}
        <Text> </Text>
        <Box>
          <Text bold>API key </Text>
          <TextInput value={value} focus={!busy} mask width={Math.min(40, width - 30)} />
          <Text color={theme.c.muted}>{count > 0 ? `  ${count} characters` : ""}</Text>
        </Box>
        <Text> </Text>
        {phase.kind === "choosing" ? (
          <Box flexDirection="column">
            <Prose
              width={inner}
              color={theme.c.warn}
              text={`⚠ The key cannot go to the keychain: ${phase.problem.message}`}
            />
            <Text> </Text>
            <Prose
              width={inner}
              text={`${keysLabel(commandById("keyThisRun"))}  use it for this run only: kept in memory, asked for again next time`}
            />
            <Prose
              width={inner}
              text={`${keysLabel(commandById("keyToFile"))}  keep it in a plain-text file${keyFile ? ` (${keyFile})` : ""}, mode 0600: anything that can read your files can read the key`}
            />
            <Text color={theme.c.muted}>
              {`${keysLabel(commandById("cancel"))} back to the key · ${keysLabel(commandById("forceQuit"))} quits`}
            </Text>
          </Box>
        ) : phase.kind === "verifying" ? (
          <Text color={theme.c.accent}>verifying with the service…</Text>
        ) : phase.kind === "failed" ? (
          <Box flexDirection="column">
            <Prose width={inner} color={theme.c.error} text={`✗ ${phase.message}`} />
            {phase.hint ? <Prose width={inner} text={phase.hint} /> : null}
          </Box>
        ) : (
          <Text color={theme.c.muted}>
            {`${keysLabel(commandById("submit"))} verifies · ${keysLabel(commandById("cancel"))} or ${keysLabel(commandById("forceQuit"))} quits`}
          </Text>
        )}
      </Box>
    </Centered>
  );
}
