import { Text } from "ink";
import { useTheme } from "../../context/theme.js";

/**
 * A one-line text field, drawn. What is typed into it comes through the one key path
 * (src/ui/input/textField.ts), never from a listener of its own.
 */
export interface TextInputProps {
  value: string;
  /** It has the cursor. */
  focus: boolean;
  /** Show bullets instead of the text (API keys). */
  mask?: boolean;
  placeholder?: string;
  /** Cells available; longer text shows its end. */
  width?: number;
}

export function TextInput({ value, focus, mask, placeholder, width }: TextInputProps) {
  const theme = useTheme();
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
