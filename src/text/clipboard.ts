import { tmuxPassthrough } from "./notification.js";

/**
 * OSC 52: put `text` on the system clipboard through the terminal (and tmux's passthrough
 * inside tmux). The client writes it on the user's key, for text it chose (a URL it has
 * validated, a session id): the text is base64-encoded, so no byte of it is a control to the
 * terminal, and nothing a server sent is ever passed through as a sequence.
 */
export function osc52Copy(text: string, opts: { tmux?: boolean } = {}): string {
  const seq = `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
  return opts.tmux ? tmuxPassthrough(seq) : seq;
}
