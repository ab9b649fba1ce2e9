import { Text, useInput } from "ink";
import { useTheme } from "../../context/theme.js";
import { commandFor } from "../../model/keymap.js";

/**
 * A one-line text field. Controlled, with functional updates: two keys arriving before a
 * re-render must not lose one. Its editing keys come from the keymap (dialog context);
 * Enter, Esc, Tab and the rest are left to the keymap's other commands.
 */
export interface TextInputProps {
  value: string;
  onChange: (update: (prev: string) => string) => void;
  focus: boolean;
  /** Show bullets instead of the text (API keys). */
  mask?: boolean;
  placeholder?: string;
  /** Cells available; longer text shows its end. */
  width?: number;
}

const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

function dropLast(s: string): string {
  const points = Array.from(s);
  points.pop();
  return points.join("");
}

export function TextInput({ value, onChange, focus, mask, placeholder, width }: TextInputProps) {
  const theme = useTheme();
  useInput(
    (input, key) => {
      switch (commandFor("dialog", input, key)?.id) {
        case "deleteChar":
          onChange(dropLast);
          return;
        case "deleteWord":
          onChange((prev) => prev.replace(/\S+\s*$/, ""));
          return;
        case "clearField":
          onChange(() => "");
          return;
      }
      // Named keys (Enter, Esc, Tab, arrows…) belong to the keymap's other commands.
      if (
        key.ctrl ||
        key.meta ||
        key.return ||
        key.tab ||
        key.upArrow ||
        key.downArrow ||
        key.leftArrow ||
        key.rightArrow ||
        key.pageUp ||
        key.pageDown ||
        key.home ||
        key.end
      ) {
        return;
      }
      // Pasted text arrives in one piece; a newline or control character in it is dropped.
      const clean = input.replace(CONTROL, "");
      if (clean) onChange((prev) => prev + clean);
    },
    { isActive: focus },
  );
  const points = Array.from(value);
  let shown = mask ? "•".repeat(points.length) : value;
  const room = width !== undefined ? Math.max(1, width - 1) : undefined;
  if (room !== undefined && Array.from(shown).length > room) {
    shown = `…${Array.from(shown)
      .slice(-(room - 1))
      .join("")}`;
  }
  if (shown === "" && placeholder && !focus) {
    return (
      <Text color={theme.c.muted} dimColor={theme.dim}>
        {placeholder}
      </Text>
    );
  }
  return (
    <Text>
      {shown}
      {focus ? <Text inverse> </Text> : null}
      {shown === "" && placeholder && focus ? (
        <Text color={theme.c.muted} dimColor={theme.dim}>
          {` ${placeholder}`}
        </Text>
      ) : null}
    </Text>
  );
}
