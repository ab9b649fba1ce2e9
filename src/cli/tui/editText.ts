import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EditText } from "../../ui/model/services.js";

const LEAVE_ALT = "\u001b[?1049l\u001b[?25h";
const ENTER_ALT = "\u001b[?1049h\u001b[H\u001b[?25l";

/**
 * The prompt box's editor key: the draft goes into a private temporary file, the terminal is
 * handed to $VISUAL (else $EDITOR) until it exits, and the UI paints itself again. The
 * editor's command is split on blanks and run without a shell (`code -w` works; nothing is
 * interpreted). A failed or cancelled edit keeps the draft.
 */
export function terminalEditor(opts: {
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  altScreen: boolean;
  repaint: () => void;
  env?: NodeJS.ProcessEnv;
}): EditText {
  return (text) => {
    const env = opts.env ?? process.env;
    const editor = (env.VISUAL || env.EDITOR || "").trim();
    if (editor === "") return { error: "Set $VISUAL or $EDITOR to edit prompts in an editor" };
    const [cmd, ...args] = editor.split(/\s+/);
    const dir = mkdtempSync(join(tmpdir(), "agent-sessions-prompt-"));
    const file = join(dir, "prompt.md");
    const raw = opts.stdin.isTTY ? opts.stdin.isRaw : false;
    try {
      writeFileSync(file, text, { mode: 0o600 });
      if (opts.altScreen) opts.stdout.write(LEAVE_ALT);
      if (opts.stdin.isTTY) opts.stdin.setRawMode(false);
      const r = spawnSync(cmd as string, [...args, file], { stdio: "inherit" });
      if (r.error) return { error: `Could not run the editor ${cmd}: ${r.error.message}` };
      if (r.status !== 0)
        return {
          error: `The editor ${cmd} exited with ${r.status ?? r.signal}: the draft is kept`,
        };
      return { text: readFileSync(file, "utf8").replace(/\r?\n$/, "") };
    } finally {
      if (opts.stdin.isTTY) opts.stdin.setRawMode(raw);
      if (opts.altScreen) opts.stdout.write(ENTER_ALT);
      opts.repaint();
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
