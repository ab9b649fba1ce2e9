import { Text } from "ink";
import { useStore } from "zustand";
import { LAUNCH_LIMIT_MAX, LAUNCH_LIMIT_MIN } from "../../../protocol/launchLimit.js";
import { NO_INTEGRATIONS } from "../../../store/integrations/integrationsStore.js";
import { useServices } from "../../context/servicesContext.js";
import { useTheme } from "../../context/theme.js";
import { integrationEditUpdate } from "../../model/integrations.js";
import { keyOf } from "../../model/keymap.js";
import type { IntegrationEditState } from "../../model/uiStore.js";
import { FormFields } from "../frame/FormFields.js";
import { dialogInnerWidth, FramedBox } from "../frame/FramedBox.js";
import { Prose } from "../frame/Prose.js";

/** The issue tracker's launch limit and default repository: the fields, then the confirmation. */

const FIELDS = [
  { label: "Launches per hour", placeholder: `${LAUNCH_LIMIT_MIN}–${LAUNCH_LIMIT_MAX}` },
  { label: "Default repository", placeholder: "owner/repo (empty clears it)" },
] as const;

export function IntegrationEditDialog({
  dialog,
  width,
  height,
}: {
  dialog: IntegrationEditState;
  width: number;
  height: number;
}) {
  const theme = useTheme();
  const { integrations } = useServices();
  const current = useStore(integrations ?? NO_INTEGRATIONS, (s) =>
    s.report?.issueTracker.state === "ok" ? s.report.issueTracker.data[0] : undefined,
  );
  const now = `Now: ${typeof current?.rate_limit_per_hour === "number" ? `${current.rate_limit_per_hour} launches per hour` : "no launch limit shown"}, ${current?.default_github_repo ? `default repository ${current.default_github_repo}` : "no default repository"}.`;
  if (dialog.confirming) {
    const r = integrationEditUpdate(dialog.values);
    const update = r.ok ? r.update : {};
    return (
      <FramedBox
        title="Change the issue tracker — confirm"
        width={width}
        height={height}
        tone="warn"
        centred
      >
        <Prose width={dialogInnerWidth(width)} text={now} />
        <Prose
          width={dialogInnerWidth(width)}
          text={`After: ${update.rate_limit_per_hour !== undefined ? `${update.rate_limit_per_hour} launches per hour` : "the launch limit unchanged"}, ${update.default_github_repo ? `default repository ${update.default_github_repo}` : "no default repository"}.`}
        />
        <Prose
          width={dialogInnerWidth(width)}
          bold
          color={theme.c.warn}
          text="⚠ This changes how many agent sessions the issue tracker may start, for the whole organization."
        />
        <Text> </Text>
        <Text>
          <Text bold color={theme.c.ok}>{`[${keyOf("confirmYes")}]`}</Text>
          <Text>{" change it   "}</Text>
          <Text bold color={theme.c.error}>{`[${keyOf("confirmNo")}]`}</Text>
          <Text>{" back to the fields"}</Text>
        </Text>
      </FramedBox>
    );
  }
  return (
    <FramedBox title="Change the issue tracker's settings" width={width} height={height} centred>
      <Prose width={dialogInnerWidth(width)} color={theme.c.muted} text={now} />
      <Prose
        width={dialogInnerWidth(width)}
        color={theme.c.muted}
        text="Only the fields below change; you confirm before anything is sent."
      />
      <Text> </Text>
      <FormFields
        fields={FIELDS}
        values={dialog.values}
        focus={dialog.field}
        width={dialogInnerWidth(width)}
        labelColumn={Math.max(...FIELDS.map((f) => f.label.length)) + 4}
        error={dialog.error}
      />
    </FramedBox>
  );
}
