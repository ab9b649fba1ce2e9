import { Box, Text, useInput } from "ink";
import { useCallback, useRef, useState } from "react";
import { sanitize } from "../../text/sanitize.js";
import { TextInput } from "../components/chrome/TextInput.js";
import { useTheme } from "../context/theme.js";
import { commandById, commandFor, endsWithEnter, keysLabel } from "../model/keymap.js";
import { frameRows, type TerminalSize } from "../model/layout.js";

/**
 * No key yet: paste one (never shown, only counted), verify it with the service, store it.
 * The verifying and storing is the caller's (`onLogin`); this screen only collects the key
 * and shows how it went.
 */

export interface LoginScreenProps {
  profile: string;
  baseUrl: string;
  size: TerminalSize;
  /** Verify and store the key; rejects with a message to show when it cannot. */
  onLogin: (key: string) => Promise<void>;
  onExit: () => void;
}

type Phase = { kind: "typing" } | { kind: "verifying" } | { kind: "failed"; message: string };

export function LoginScreen({ profile, baseUrl, size, onLogin, onExit }: LoginScreenProps) {
  const theme = useTheme();
  const [value, setValue] = useState("");
  const [phase, setPhase] = useState<Phase>({ kind: "typing" });
  const valueRef = useRef(value);
  valueRef.current = value;
  const busy = phase.kind === "verifying";

  const onChange = useCallback((update: (prev: string) => string) => {
    // The ref moves at once, so an Enter in the same read as the pasted key sees the key.
    const next = update(valueRef.current);
    valueRef.current = next;
    setValue(next);
    setPhase((p) => (p.kind === "failed" ? { kind: "typing" } : p));
  }, []);

  useInput((input, key) => {
    const cmd = commandFor("dialog", input, key);
    if (cmd?.id === "forceQuit" || (cmd?.id === "cancel" && !busy)) {
      onExit();
      return;
    }
    if (endsWithEnter(input) && !busy) {
      queueMicrotask(submit);
      return;
    }
    if (cmd?.id !== "submit" || busy) return;
    submit();
  });

  function submit() {
    const k = valueRef.current.trim();
    if (!k) {
      setPhase({ kind: "failed", message: "Paste a key first" });
      return;
    }
    setPhase({ kind: "verifying" });
    onLogin(k).then(
      () => setPhase({ kind: "typing" }),
      (e: unknown) =>
        setPhase({
          kind: "failed",
          message: sanitize(e instanceof Error ? e.message : String(e)) || "the key was refused",
        }),
    );
  }

  const width = Math.min(size.columns, 76);
  const count = Array.from(value).length;
  return (
    <Box
      width={size.columns}
      height={frameRows(size)}
      justifyContent="center"
      alignItems="center"
      overflow="hidden"
    >
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
        <Text wrap="wrap">
          No API key is stored for this profile. Paste one and press Enter: it is verified with the
          service, then kept in the OS keychain. It is never shown.
        </Text>
        <Text> </Text>
        <Box>
          <Text bold>API key </Text>
          <TextInput
            value={value}
            onChange={onChange}
            focus={!busy}
            mask
            width={Math.min(40, width - 30)}
          />
          <Text color={theme.c.muted}>{count > 0 ? `  ${count} characters` : ""}</Text>
        </Box>
        <Text> </Text>
        {phase.kind === "verifying" ? (
          <Text color={theme.c.accent}>verifying with the service…</Text>
        ) : phase.kind === "failed" ? (
          <Text color={theme.c.error} wrap="wrap">
            ✗ {phase.message}
          </Text>
        ) : (
          <Text color={theme.c.muted}>
            {`${keysLabel(commandById("submit"))} verifies · ${keysLabel(commandById("cancel"))} or ${keysLabel(commandById("forceQuit"))} quits`}
          </Text>
        )}
      </Box>
    </Box>
  );
}
