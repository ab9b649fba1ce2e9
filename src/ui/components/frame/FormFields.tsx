import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../../context/theme.js";
import { TextInput } from "../chrome/TextInput.js";
import { Prose } from "./Prose.js";

export interface FormFieldView {
  /** The label as shown (with "(optional)" when the form says so). */
  label: string;
  placeholder: string;
}

/**
 * The one form of the dialogs: a row per field (the focused one marked ▸, its label padded to
 * `labelColumn`, then its text field), what the form shows under them (`children`), and its
 * error. The clone, branch and
 * pull-request forms and the issue tracker's settings all draw their fields here.
 */
export function FormFields({
  fields,
  values,
  focus,
  width,
  labelColumn,
  error,
  children,
}: {
  fields: readonly FormFieldView[];
  values: readonly string[];
  /** The focused field's index. */
  focus: number;
  /** Text width inside the dialog. */
  width: number;
  labelColumn: number;
  error: string | null | undefined;
  children?: ReactNode;
}) {
  const theme = useTheme();
  return (
    <>
      {fields.map((f, i) => {
        const focused = i === focus;
        return (
          <Box key={f.label} height={1}>
            <Text bold={focused} color={focused ? theme.c.accent : undefined}>
              {`${focused ? "▸" : " "} ${f.label}`.padEnd(labelColumn)}
            </Text>
            <TextInput
              value={values[i] ?? ""}
              focus={focused}
              placeholder={f.placeholder}
              width={Math.max(8, width - labelColumn)}
            />
          </Box>
        );
      })}
      {children}
      {error ? <Prose text={`✗ ${error}`} width={width} color={theme.c.error} /> : null}
    </>
  );
}
