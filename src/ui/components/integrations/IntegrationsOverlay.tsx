import { Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { NO_INTEGRATIONS } from "../../../store/integrations/integrationsStore.js";
import { useServices } from "../../context/servicesContext.js";
import { type ColorName, useTheme } from "../../context/theme.js";
import { detailRows } from "../../model/geometry.js";
import { integrationsViewLines, type ViewTone } from "../../model/integrations.js";
import { keyOf } from "../../model/keymap.js";
import { FramedBox } from "../frame/FramedBox.js";
import { ScrollList, scrollNote } from "../frame/ScrollList.js";

/**
 * What the service can reach: the code hosting app's installations (their configure URLs,
 * shown as text, never opened) and repositories, your token, the issue tracker and its
 * launch limit, the chat tool and its service account's health. Read-only; admins and owners
 * may edit the issue tracker from here.
 */

const TONE: Record<ViewTone, ColorName | null> = {
  title: "accent",
  normal: null,
  muted: "muted",
  warn: "warn",
  error: "error",
};

export const IntegrationsOverlay = memo(function IntegrationsOverlay({
  width,
  height,
  offset,
}: {
  width: number;
  height: number;
  offset: number;
}) {
  const { integrations } = useServices();
  const theme = useTheme();
  const st = useStore(
    // A replay has none (the key that opens the view refuses there).
    integrations ?? NO_INTEGRATIONS,
    useShallow((s) => ({ report: s.report, loading: s.loading })),
  );
  const lines = integrationsViewLines(st.report, st.loading);
  const rows = detailRows(height);
  const more = scrollNote(lines.length > rows);
  const reading = st.loading && st.report ? " · reading again…" : "";
  return (
    <FramedBox
      width={width}
      height={height}
      title="Integrations"
      note={` — ${keyOf("cancel")} or ${keyOf("integrations")} closes · ${keyOf("editIntegration")} edits the issue tracker · ${keyOf("refresh")} reads again${more}${reading}`}
    >
      <ScrollList
        items={lines}
        rows={rows}
        top={offset}
        render={(l) => {
          const color = TONE[l.tone];
          return (
            <Text
              wrap="truncate-end"
              bold={l.tone === "title"}
              {...(color ? { color: theme.c[color] } : {})}
            >
              {l.text || " "}
            </Text>
          );
        }}
      />
    </FramedBox>
  );
});
