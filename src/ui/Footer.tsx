import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { missingScope } from "./gitActions.js";
import {
  type Command,
  commandById,
  footerCommands,
  KEYMAP,
  type KeyContext,
  keyLabel,
} from "./keymap.js";
import { useServices } from "./services.js";
import { useTheme } from "./theme.js";
import { useUi } from "./uiContext.js";
import type { UiState } from "./uiStore.js";

/** Key hints for what has focus, generated from the keymap; disabled actions say why. */

type FooterMode = KeyContext | "confirm" | "form" | "edit" | "overlay";

function modeOf(s: UiState): FooterMode {
  if (s.dialog) return s.dialog.kind === "form" ? "form" : "confirm";
  if (s.editing) return "edit";
  if (s.overlay) return "overlay";
  return s.focus > 0 ? "pane" : "list";
}

function commandsFor(mode: FooterMode): Command[] {
  const dialog = footerCommands("dialog");
  switch (mode) {
    case "confirm":
      return ["confirmYes", "confirmNo", "cancel"].map((id) => commandById(id as Command["id"]));
    case "form":
    case "edit":
      return dialog.filter(
        (c) => c.id !== "confirmYes" && (mode === "form" || c.id !== "nextField"),
      );
    case "overlay":
      return KEYMAP.filter((c) => c.id === "help" || c.id === "cancel");
    default:
      return footerCommands(mode);
  }
}

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
  const mode = useStore(ui, modeOf);
  const keyInfo = useStore(identity, (s) => s.keyInfo);
  const cmds =
    replay && (mode === "list" || mode === "pane")
      ? [...footerCommands("replay"), ...commandsFor(mode)]
      : commandsFor(mode);
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
