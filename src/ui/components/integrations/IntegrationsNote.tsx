import { Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import type { IntegrationsStore } from "../../../store/integrations/integrationsStore.js";
import { integrationWarningLabels } from "../../../store/integrations/integrationsText.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { keyOf } from "../../model/keymap.js";

/**
 * In the header, once the integrations have been read: a disconnected code hosting token, an
 * unhealthy chat tool service account, and the key that shows them whole.
 */

function Note({ store }: { store: IntegrationsStore }) {
  const theme = useTheme();
  const labels = useStore(
    store,
    useShallow((s) => (s.report ? integrationWarningLabels(s.report) : [])),
  );
  if (labels.length === 0) return null;
  return <Text color={theme.c.warn}>{` · ⚠ ${labels.join(", ")} (${keyOf("integrations")})`}</Text>;
}

export const IntegrationsNote = memo(function IntegrationsNote() {
  const { integrations } = useServices();
  return integrations ? <Note store={integrations} /> : null;
});
