import { Text } from "ink";
import { layoutText } from "../../../text/wrap.js";

/**
 * A paragraph in a dialog, wrapped at word boundaries by the one prose wrapper (wrapWords):
 * no line starts with the space it broke at, and no word is cut where a line has room for it
 * whole (Ink's own wrapping keeps that space and cuts a long word mid-way).
 */
export function Prose({
  text,
  width,
  color,
  bold,
}: {
  text: string;
  /** The text's width in cells (inside the dialog's border and padding). */
  width: number;
  color?: string | undefined;
  bold?: boolean | undefined;
}) {
  return (
    <>
      {layoutText(text, width, true, "words").map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a paragraph's lines are its positions.
        <Text key={i} wrap="truncate-end" color={color} bold={bold}>
          {line === "" ? " " : line}
        </Text>
      ))}
    </>
  );
}
