/**
 * One status line at the bottom of a terminal (the progress bar), with every other line printed
 * above it. Whatever else writes to the same terminal must go through `print`: a line written
 * behind its back lands on the status line and is cut by the next redraw.
 *
 * Invariants: the status line never wraps (it is cut to the terminal's width, since a wrapped line
 * cannot be erased with one carriage return); while it is shown the cursor is hidden and sits at
 * its end; `clear` (and the process' 'exit', however it comes: a second Ctrl-C, process.exit, an
 * uncaught error) erases it and shows the cursor again, so no exit leaves a garbled terminal.
 */

export interface StatusLine {
  /** Prints `text` above the status line (a line break is added when missing). */
  print(text: string): void;
  /** Shows `line` as the status line, replacing the one shown. */
  status(line: string): void;
  /** Erases the status line and shows the cursor; `print` then writes straight through. */
  clear(): void;
  /** Clears, and stops watching the terminal's size and the process' exit. */
  dispose(): void;
}

/** The few ANSI sequences used (ECMA-48): nothing a terminal since the VT100 lacks. */
const CR = '\r';
const ERASE_LINE = '\x1b[2K';
const ERASE_TO_END = '\x1b[K';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

export function createStatusLine(stream: NodeJS.WriteStream): StatusLine {
  let shown: string | undefined;
  // A terminal that says it has 0 columns (`docker run -t`, some CI terminals) has not said.
  const width = () => Math.max((stream.columns || 80) - 1, 1);
  const cut = (line: string) => {
    const chars = [...line.replace(/[\r\n]+/g, ' ')];
    return chars.length <= width() ? line : `${chars.slice(0, width() - 1).join('')}…`;
  };
  const draw = () => (shown === undefined ? '' : `${CR}${cut(shown)}${ERASE_TO_END}`);
  const clear = () => {
    if (shown === undefined) return;
    shown = undefined;
    stream.write(`${CR}${ERASE_LINE}${SHOW_CURSOR}`);
  };
  // A narrower terminal would wrap the line: draw it again at the new width.
  const onResize = () => {
    if (shown !== undefined) stream.write(`${CR}${ERASE_LINE}${draw()}`);
  };
  stream.on('resize', onResize);
  process.on('exit', clear);
  return {
    print(text) {
      const line = text.endsWith('\n') ? text : `${text}\n`;
      if (shown === undefined) {
        stream.write(line);
        return;
      }
      // The line is erased first, so a leading break (meant to step off an echoed ^C) is not needed.
      // One write: the terminal never shows the line erased without the text.
      stream.write(`${CR}${ERASE_LINE}${line.replace(/^\n+/, '')}${draw()}`);
    },
    status(line) {
      const first = shown === undefined;
      shown = line;
      stream.write(`${first ? HIDE_CURSOR : ''}${draw()}`);
    },
    clear,
    dispose() {
      clear();
      stream.off('resize', onResize);
      process.off('exit', clear);
    },
  };
}
