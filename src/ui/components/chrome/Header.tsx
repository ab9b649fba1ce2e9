import { Box, Text } from "ink";
import { memo } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import { shallow } from "zustand/shallow";
import type { RateLimitInfo } from "../../../protocol/rateLimit.js";
import { keyExpiresAt } from "../../../protocol/resources.js";
import { isLegacyScope, narrowedScopes } from "../../../protocol/scopes.js";
import {
  type ConnectionSummary,
  selectConnectionSummary,
} from "../../../store/streams/connectionSummary.js";
import { expiryStatus, formatCountdown, formatRateLimit } from "../../../text/format.js";
import { useServices } from "../../context/servicesContext.js";
import { type ColorName, useTheme } from "../../context/theme.js";
import { useTicked } from "../../hooks/useNow.js";
import { headerOf } from "../../model/geometry.js";
import type { TerminalSize } from "../../model/layout.js";
import { IntegrationsNote } from "../integrations/IntegrationsNote.js";
import { JournalNote } from "./JournalNote.js";

/**
 * Who you are to the service and how the connection is: profile, base URL, the one global
 * connection indicator, rate-limit headroom; principal, tenant, role, key and its expiry;
 * effective scopes with what the role narrowed away.
 */

export interface HeaderProps {
  profile: string;
  baseUrl: string;
  /** The terminal: the header is its full box, or two plain lines on a short one. */
  size: TerminalSize;
}

function connectionText(c: ConnectionSummary, now: number): { text: string; color: ColorName } {
  const of = c.total > 1 ? ` ${c.live}/${c.total}` : "";
  switch (c.state) {
    case "idle":
      return { text: "○ no streams", color: "muted" };
    case "connecting":
      return { text: `◌ connecting${of}`, color: "warn" };
    case "live":
      return { text: `● live${of}`, color: "ok" };
    case "reconnecting": {
      const when = c.nextRetryAt !== null ? ` in ${formatCountdown(c.nextRetryAt - now)}` : "";
      return { text: `↻ reconnecting${when} (${c.reconnecting} of ${c.total})`, color: "warn" };
    }
    case "error":
      return { text: `✗ ${c.failed} stream${c.failed === 1 ? "" : "s"} stopped`, color: "error" };
    case "stopped":
      return { text: "■ streams stopped", color: "muted" };
  }
}

function rateFigures(info: RateLimitInfo | null, now: number): string {
  return info ? formatRateLimit(info, now, { coarse: true }) : "rate limit: —";
}

const Sep = () => {
  const theme = useTheme();
  return (
    <Text color={theme.c.muted} dimColor={theme.dim}>
      {" · "}
    </Text>
  );
};

export const Header = memo(function Header({ profile, baseUrl, size }: HeaderProps) {
  const width = size.columns;
  const { rows, compact } = headerOf(size);
  const { identity, rateLimit, streams, maskedKey, replay } = useServices();
  const theme = useTheme();
  const id = useStore(
    identity,
    useShallow((s) => ({
      keyInfo: s.keyInfo,
      me: s.identity,
      error: s.error,
      identityError: s.identityError,
      loading: s.loading,
    })),
  );
  // A wait is drawn at once. The figures come with every answer and are read on the shared
  // tick (or with any other change of the header): a frame for each answer would redraw the
  // whole screen while a view's answers arrive.
  const wait = useStore(rateLimit, (s) => s.waiting);
  const conn = useStore(streams, useShallow(selectConnectionSummary));

  const k = id.keyInfo;
  const role = k ? (k.role ?? "personal key") : null;
  const principal = id.me?.principal_id ?? k?.user_id ?? "?";
  const tenant = k?.tenant_id ?? id.me?.tenant_id ?? "?";
  // What the identity lookup adds when the service sends it (the real service documents it).
  const email = id.me?.email ?? null;
  const orgName = id.me?.org_name ?? null;
  const keyName = id.me?.api_key_name ?? k?.name ?? "?";
  // The texts that move with the clock, derived on the shared tick: the header renders again
  // only when one of them reads differently.
  const timed = useTicked(
    (now) => {
      const c = connectionText(conn, now);
      const e = k ? expiryStatus(keyExpiresAt(k), now) : null;
      return {
        connText: c.text,
        connColor: c.color,
        expiryText: e?.text,
        expiryLevel: e?.level,
        waitIn: wait ? formatCountdown(wait.until - now) : null,
        remaining: rateFigures(rateLimit.getState().info, now),
      };
    },
    undefined,
    shallow,
  );
  // A replay connects to nothing: its streams are a recording's, not live ones.
  const c = replay
    ? { text: "▶ recording (no connection)", color: "muted" as ColorName }
    : { text: timed.connText, color: timed.connColor };
  const expiry = k ? { text: timed.expiryText, level: timed.expiryLevel } : null;
  const expiryColor: ColorName | undefined =
    expiry?.level === "expired" ? "error" : expiry?.level === "warn" ? "warn" : undefined;
  const narrowed = k ? narrowedScopes(k.scopes, k.effective_scopes) : [];
  const legacy = k ? k.scopes.filter(isLegacyScope) : [];

  const first = (
    <Text wrap="truncate-end">
      <Text bold color={theme.c.accent}>
        agent-sessions
      </Text>
      <Sep />
      <Text>profile: {profile}</Text>
      <Sep />
      <Text>{baseUrl}</Text>
      <Sep />
      <Text color={theme.c[c.color]}>{c.text}</Text>
      <Sep />
      <Text color={wait ? theme.c.warn : undefined}>{timed.remaining}</Text>
      {wait ? (
        <Text color={theme.c.warn}>
          {wait.cause.kind === "budget"
            ? ` · ${wait.reason}: next in ${timed.waitIn}`
            : ` · ${wait.reason}: retry in ${timed.waitIn} (attempt ${wait.attempt}/${wait.maxAttempts})`}
        </Text>
      ) : null}
      <JournalNote />
    </Text>
  );
  const who = (
    <>
      <Text bold>{principal}</Text>
      <Text>
        {" "}
        ({role} @ {tenant}
        {orgName && !compact ? ` "${orgName}"` : ""})
      </Text>
      <Sep />
      <Text>
        key "{keyName}" {maskedKey}
      </Text>
      <Sep />
      <Text color={expiryColor ? theme.c[expiryColor] : undefined} bold={expiryColor !== undefined}>
        {expiryColor ? "⚠ " : ""}
        {expiry?.text}
      </Text>
      {email && !compact ? (
        <>
          <Sep />
          <Text>{email}</Text>
        </>
      ) : null}
      {id.identityError ? (
        <Text color={theme.c.warn}> · identity lookup failed: {id.identityError.message}</Text>
      ) : null}
    </>
  );
  const scopes = k ? (
    <>
      <Text color={theme.c.muted}>effective: </Text>
      <Text>{k.effective_scopes.length > 0 ? k.effective_scopes.join(" ") : "(none)"}</Text>
      {narrowed.length > 0 ? (
        <Text color={theme.c.warn}>
          {`   (stored: +${narrowed.join(" +")} — narrowed by role ${k.role ?? "?"})`}
        </Text>
      ) : null}
      {legacy.length > 0 ? (
        <Text color={theme.c.muted}>{`   (legacy ${legacy.join(", ")} expanded)`}</Text>
      ) : null}
      <IntegrationsNote />
    </>
  ) : null;
  const second = replay ? (
    // No key, no caller, no scopes: say what this is instead of filling the fields in.
    <Text wrap="truncate-end" color={theme.c.muted}>
      replaying a recording: no key is used and nothing is sent to any service
    </Text>
  ) : id.error ? (
    <Text wrap="truncate-end" color={theme.c.error}>
      ✗ key check failed: {id.error.message}
      {id.error.hint ? ` — ${id.error.hint}` : ""}
    </Text>
  ) : !k ? (
    <Text wrap="truncate-end" color={theme.c.muted}>
      {id.loading ? "verifying key…" : "key not verified yet"} · key {maskedKey}
    </Text>
  ) : compact ? (
    // Two lines only: who you are and the scopes share the second.
    <Text wrap="truncate-end">
      {who}
      <Sep />
      {scopes}
    </Text>
  ) : (
    <Text wrap="truncate-end">{who}</Text>
  );

  if (compact) {
    return (
      <Box width={width} height={rows} flexDirection="column" paddingX={1} flexShrink={0}>
        {first}
        {second}
      </Box>
    );
  }
  return (
    <Box
      width={width}
      height={rows}
      flexDirection="column"
      borderStyle="round"
      borderColor={theme.c.muted}
      paddingX={1}
      flexShrink={0}
    >
      {first}
      {second}
      <Text wrap="truncate-end">{replay ? " " : (scopes ?? " ")}</Text>
    </Box>
  );
});
