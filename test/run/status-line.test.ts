import { afterEach, describe, expect, it } from 'vitest';
import { createStatusLine, type StatusLine } from '../../src/run/status-line.js';
import { fakeTty } from './_tty.js';

const HIDE = '\x1b[?25l';
const SHOW = '\x1b[?25h';

let open: StatusLine[] = [];
afterEach(() => {
  for (const line of open) line.dispose();
  open = [];
});

function statusLine(columns = 80) {
  const tty = fakeTty(columns);
  const line = createStatusLine(tty.stream);
  open.push(line);
  return { tty, line };
}

describe('status line', () => {
  it('prints lines above the status line and draws it again below them', () => {
    const { tty, line } = statusLine();
    line.status('[####------] 40% 40/100 rows');
    line.print('12:00:01 WARN  a log line');
    line.status('[#####-----] 50% 50/100 rows');
    line.print('12:00:02 INFO  another\n');
    expect(tty.screen()).toEqual([
      '12:00:01 WARN  a log line',
      '12:00:02 INFO  another',
      '[#####-----] 50% 50/100 rows',
    ]);
  });

  it('writes a printed line and the redrawn status in one write, so no moment shows them apart', () => {
    const { tty, line } = statusLine();
    line.status('bar');
    const before = tty.writes.length;
    line.print('a line');
    expect(tty.writes.length).toBe(before + 1);
  });

  it('never lets the status line wrap: it is cut to the terminal width', () => {
    const { tty, line } = statusLine(30);
    line.status('x'.repeat(100));
    const shown = tty.screen().at(-1) ?? '';
    expect([...shown].length).toBeLessThan(30);
    expect(shown.endsWith('…')).toBe(true);
  });

  it('cuts the line even on a terminal narrower than ten columns', () => {
    const { tty, line } = statusLine(5);
    line.status('reading input 21% of 0.0 MB');
    expect([...(tty.screen().at(-1) ?? '')].length).toBeLessThan(5);
  });

  it('draws the line again at the new width when the terminal is resized', () => {
    const { tty, line } = statusLine(80);
    line.status('y'.repeat(60));
    tty.resize(20);
    expect([...(tty.screen().at(-1) ?? '')].length).toBeLessThan(20);
  });

  it('hides the cursor while it shows a status, and clear() erases it and shows the cursor again', () => {
    const { tty, line } = statusLine();
    line.status('bar');
    expect(tty.text()).toContain(HIDE);
    line.clear();
    expect(tty.text().endsWith(SHOW)).toBe(true);
    expect(tty.screen()).toEqual(['']);
    // Afterwards lines go straight through, with nothing to redraw.
    line.print('summary');
    expect(tty.screen()).toEqual(['summary', '']);
  });

  it('leaves a clean terminal when the process exits with the status shown (a second Ctrl-C)', () => {
    const { tty, line } = statusLine();
    line.status('bar');
    // Only our listener: emitting 'exit' would run the test worker's own.
    const onExit = process.listeners('exit').at(-1) as (code: number) => void;
    onExit(1);
    expect(tty.text().endsWith(SHOW)).toBe(true);
    expect(tty.screen()).toEqual(['']);
  });

  it('drops the leading line break of a message printed over an echoed ^C', () => {
    const { tty, line } = statusLine();
    line.status('bar');
    tty.writes.push('^C'); // what the terminal itself echoes at the cursor
    line.print('\ngeobatch: SIGINT: stopping: the rows done are kept\n');
    expect(tty.screen()).toEqual(['geobatch: SIGINT: stopping: the rows done are kept', 'bar']);
  });

  it('stops listening to exit and resize once disposed', () => {
    const before = process.listenerCount('exit');
    const { tty, line } = statusLine();
    expect(process.listenerCount('exit')).toBe(before + 1);
    line.dispose();
    expect(process.listenerCount('exit')).toBe(before);
    expect((tty.stream as unknown as NodeJS.EventEmitter).listenerCount('resize')).toBe(0);
  });
});
