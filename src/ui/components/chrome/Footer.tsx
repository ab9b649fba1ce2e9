import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { useUi } from "../../context/uiContext.js";
import { missingScope } from "../../model/gitActions.js";
import { type Command, footerCommands, keyLabel } from "../../model/keymap.js";
import { modeKindOf } from "../../model/mode.js";

/** Key hints for the current mode, generated from the keymap; disabled actions say why. */

function firstKey(c: Command): string {
  const k = c.keys[0];
  if (!k) return "";
  if (k.name === "return") return "⏎";
  return keyLabel(k).replace(/^Tab$/, "tab").replace(/^Esc$/, "esc");
}

export const Footer = memo(function Footer({ width }: { width: number }) {
  const { identity, replay } = useServices();
  const { ui } = useUi();
  const theme = useTheme();
  const mode = useStore(ui, modeKindOf);
  const keyInfo = useStore(identity, (s) => s.keyInfo);
  const cmds = footerCommands(mode, replay !== undefined);
  const lacking = new Set<string>();
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate-end">
        {cmds.map((c) => {
          const missing = missingScope(c.scope, { keyInfo });
          if (missing) lacking.add(missing);
          return (
            <Text key={c.id}>
              <Text
                bold={!missing}
                color={missing ? theme.c.muted : theme.c.accent}
                strikethrough={missing !== null}
              >
                {firstKey(c)}
              </Text>
              <Text color={missing ? theme.c.muted : undefined} strikethrough={missing !== null}>
                {` ${c.label}${missing ? "✗" : ""}`}
              </Text>
              <Text> </Text>
            </Text>
          );
        })}
        {lacking.size > 0 ? (
          <Text color={theme.c.warn}>{` ✗ needs ${[...lacking].join(", ")}`}</Text>
        ) : null}
      </Text>
    </Box>
  );
});
