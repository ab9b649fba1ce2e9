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
  if (shown === "" && placeholder && focus) {
    // The cursor sits on the placeholder's first cell, so the text starts in the same column
    // focused or not (the fields of a form stay in line).
    const [first = " ", ...rest] = Array.from(placeholder);
    return (
      <Text>
        <Text inverse>{first}</Text>
        <Text color={theme.c.muted} dimColor={theme.dim}>
          {rest.join("")}
        </Text>
      </Text>
    );
  }
  return (
    <Text>
      {shown}
      {focus ? <Text inverse> </Text> : null}
    </Text>
  );
}
