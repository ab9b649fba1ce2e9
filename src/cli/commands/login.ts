import type { Command } from "commander";
import { InvalidKeyError } from "../../client/errors.js";
import { CredentialsUsageError, KeychainUnavailableError } from "../../credentials/errors.js";
import { assertKeychainReachable } from "../../credentials/keychain.js";
import { insecureKeyPath } from "../../credentials/paths.js";
import { checkKeyShape, plainHttpWarning, resolveTarget } from "../../credentials/resolve.js";
import { fileRouteStore } from "../../credentials/routeCache.js";
import { saveCredentials } from "../../credentials/store.js";
import { keyExpiresAt } from "../../protocol/resources.js";
import { narrowedScopes } from "../../protocol/scopes.js";
import { expiryStatus, maskKey } from "../../text/format.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { createClient } from "../clientFactory.js";
import { announceWaits } from "../context.js";
import { tuningFromEnv } from "../envTuning.js";
import { globalOptions } from "../globalOptions.js";
import { readHiddenLine, readPipedInput } from "../hiddenInput.js";
import { err, fail, out, registerSecret, table } from "../output.js";
import { inputIsTerminal } from "../terminalCheck.js";

export interface LoginOptions {
  insecureStorage?: boolean;
}

/** `agent-sessions login`: verify a key (piped or typed at a hidden prompt) and store it. */
export async function runLogin(opts: LoginOptions, cmd: Command): Promise<void> {
  try {
    await login(opts, cmd);
  } catch (e) {
    fail(e);
  }
}

async function readKey(profile: string, baseUrl: string): Promise<{ raw: string; from: string }> {
  const stdin = process.stdin;
  if (!inputIsTerminal(stdin)) return { raw: await readPipedInput(stdin), from: "stdin" };
  const raw = await readHiddenLine(
    `API key for profile ${profile} (${baseUrl}), not echoed: `,
    stdin,
    process.stderr,
  );
  return { raw, from: "the prompt" };
}

async function login(opts: LoginOptions, cmd: Command): Promise<void> {
  if (cmd.args.length > 0) {
    throw new CredentialsUsageError(
      `login takes no arguments (${cmd.args.length} given, not shown): the key is never read from the command line, where shell history and the process list would keep it`,
      "Pipe the key (agent-sessions login < key.txt) or run agent-sessions login and paste it at the hidden prompt.",
    );
  }
  const g = globalOptions(cmd);
  const target = await resolveTarget({ profile: g.profile, baseUrl: g.baseUrl, org: g.org });
  const { profile, baseUrl } = target;
  // No point asking for a key that could not be stored: without a keychain, a terminal is
  // asked where the key goes instead (the sign-in screen's choices); a script is told.
  let storage: Storage = opts.insecureStorage ? "file" : "keychain";
  if (storage === "keychain") {
    try {
      assertKeychainReachable();
    } catch (e) {
      if (!(e instanceof KeychainUnavailableError) || !inputIsTerminal(process.stdin)) throw e;
      storage = await chooseStorage(e, insecureKeyPath(profile));
    }
  }

  const { raw, from } = await readKey(profile, baseUrl);
  if (raw.trim() === "") {
    throw new CredentialsUsageError(
      `no API key on ${from}`,
      from === "stdin"
        ? "Pipe the key in (agent-sessions login < key.txt), or run login in a terminal to be prompted."
        : "Paste the key at the prompt (it is not echoed).",
    );
  }
  const apiKey = checkKeyShape(raw, from);
  registerSecret(apiKey);

  const client = createClient(
    { baseUrl, apiKey, organizationId: target.organizationId },
    // The key's organization, as verify answers it, is kept for the commands that follow.
    { tuning: tuningFromEnv(), routeStore: fileRouteStore() },
  );
  announceWaits(client.rateLimit);
  // One question, then the client's connections go.
  const info = await client.verify().finally(() => client.close());
  if (info.valid === false) {
    throw new InvalidKeyError("the service reports this key as not valid; nothing was stored", 200);
  }

  if (storage === "nowhere") {
    out(`The key is valid for ${baseUrl} (profile ${profile}); nothing was stored.`);
    out(
      "Set AGENT_SESSIONS_API_KEY (and AGENT_SESSIONS_BASE_URL) in the shell that uses it; they last as long as that shell.",
    );
    return;
  }

  const saved = await saveCredentials({
    profile,
    baseUrl,
    apiKey,
    insecureStorage: storage === "file",
    // --org given at login is remembered for the profile.
    ...(g.org !== undefined && target.organizationId !== null
      ? { organizationId: target.organizationId }
      : {}),
  });

  const s = (v: string | null | undefined) => sanitizeLine(v ?? "");
  const narrowed = narrowedScopes(info.scopes, info.effective_scopes);
  const expiry = expiryStatus(keyExpiresAt(info));
  const organization = info.organization_id
    ? `${s(info.organization_id)} · role ${s(info.role ?? "unknown")}`
    : "personal";
  const rows: string[][] = [
    ["user", s(info.user_id)],
    ["organization", organization],
    ["key", `"${s(info.name)}" ${maskKey(apiKey)} (id ${s(info.key_id)})`],
    ["effective scopes", info.effective_scopes.map(s).join(" ") || "(none)"],
  ];
  if (narrowed.length > 0) {
    rows.push([
      "narrowed by role",
      `${narrowed.map(s).join(" ")} (stored on the key, not allowed for role ${s(info.role ?? "")})`,
    ]);
  }
  rows.push(["expires", info.expires_at ? `${expiry.text} (${s(info.expires_at)})` : "never"]);
  if (target.organizationId !== null) {
    rows.push([
      "acting in",
      `${s(target.organizationId)} (X-Organization-Id${g.org !== undefined ? ", stored for the profile" : ""})`,
    ]);
  }
  rows.push(["stored in", saved.location]);

  const isDefault = saved.madeDefault || target.config.default_profile === profile;
  out(`Logged in to ${baseUrl} as profile ${profile}${isDefault ? " (default)" : ""}.`);
  out(indent(table(["", ""], rows).split("\n").slice(1).join("\n")));
  for (const r of saved.removed) out(`Removed the earlier copy in ${r}.`);

  for (const w of saved.warnings) err(`warning: ${w}`);
  const http = plainHttpWarning(baseUrl);
  if (http) err(`warning: ${http}`);
  if (expiry.level === "warn") err(`warning: this key ${expiry.text}; create a new one soon`);
  if ((process.env.AGENT_SESSIONS_API_KEY ?? "").trim() !== "") {
    err(
      "warning: AGENT_SESSIONS_API_KEY is set in this environment and is used instead of the stored key until you unset it",
    );
  }
}

/** Where the key goes: the OS keychain, the 0600 file, or nowhere (verified, this run only). */
type Storage = "keychain" | "file" | "nowhere";

/**
 * No keychain here, and a person at the terminal: the choices the sign-in screen offers, each
 * with what does it in a script. Anything else cancels, as the keychain error would.
 */
async function chooseStorage(problem: KeychainUnavailableError, file: string): Promise<Storage> {
  process.stderr.write(
    [
      `The OS keychain is unavailable: ${problem.reason}.`,
      "Where should the key go?",
      `  f  a plain-text file (${file}), mode 0600: anything that can read your files can read the key`,
      "     (in scripts: agent-sessions login --insecure-storage)",
      "  r  this run only: verify the key and store nothing",
      "     (in scripts: set AGENT_SESSIONS_API_KEY instead of logging in)",
      "  q  cancel",
      "",
    ].join("\n"),
  );
  const answer = (await readHiddenLine("f, r or q: ", process.stdin, process.stderr))
    .trim()
    .toLowerCase();
  if (answer === "f") return "file";
  if (answer === "r") return "nowhere";
  throw problem;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
