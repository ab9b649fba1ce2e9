/**
 * Whether a terminal is there, decided here only: the terminal UI (`ui`, `open`, `fleet`,
 * `replay`, `demo`) needs one for input and output alike; `login` prompts only when a person
 * is at the input; headless output is styled for a person only when stdout is one.
 */

type Tty = { readonly isTTY?: boolean };

/** Keys can be read and frames drawn: stdin and stdout are both terminals. */
export function hasTerminal(stdin: Tty = process.stdin, stdout: Tty = process.stdout): boolean {
  return stdin.isTTY === true && stdout.isTTY === true;
}

/** A person can type at the input (a prompt), rather than it being a pipe or a file. */
export function inputIsTerminal(stdin: Tty = process.stdin): boolean {
  return stdin.isTTY === true;
}

/** Output goes to a person (colour, the terminal's width) rather than a pipe or a file. */
export function outputIsTerminal(stdout: Tty = process.stdout): boolean {
  return stdout.isTTY === true;
}

/** NO_COLOR is set to something (https://no-color.org): no colours anywhere. */
export function noColorAsked(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.NO_COLOR ?? "") !== "";
}

/**
 * The one colour rule of headless output: colours (ours and the ones a server's text
 * carries) only on a terminal, and never under NO_COLOR. Anywhere else (a file, a pipe) every
 * escape sequence is stripped.
 */
export function colorFor(stream: Tty, env: NodeJS.ProcessEnv = process.env): boolean {
  return outputIsTerminal(stream) && !noColorAsked(env);
}
