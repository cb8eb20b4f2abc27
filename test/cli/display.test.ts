import { describe, expect, it } from 'vitest';
import { openDisplay } from '../../src/cli/_display.js';
import { startProgress } from '../../src/run/progress.js';
import { fakeTty } from '../run/_tty.js';

const snapshot = () => ({
  rowsDone: 40,
  rowsRead: 40,
  rowsFailed: 1,
  requests: 4,
  bytesRead: 40,
  bytesTotal: 100,
});

describe('display on a terminal', () => {
  it('prints log lines above the progress bar, pretty, and keeps the bar whole below them', () => {
    const tty = fakeTty(160);
    const display = openDisplay({ logLevel: 'info', stream: tty.stream, env: {} });
    const progress = startProgress(snapshot, display.logger, {
      stream: tty.stream,
      statusLine: display.statusLine,
    });
    display.logger.warn({ attempt: 2 }, 'HTTP 503, retrying');
    display.logger.info('second line');
    const screen = tty.screen();
    expect(screen).toHaveLength(3);
    expect(screen[0]).toMatch(/^\d\d:\d\d:\d\d WARN {2}HTTP 503, retrying attempt=2$/);
    expect(screen[1]).toMatch(/^\d\d:\d\d:\d\d INFO {2}second line$/);
    expect(screen[2]).toMatch(/40% · 40\/100 rows .* 1 failed/);
    progress.stop();
    display.write('geocode: done\n');
    display.close();
    expect(tty.screen().slice(2)).toEqual(['geocode: done', '']);
    expect(tty.text()).toContain('\x1b[?25h');
  });

  it('colours the levels unless NO_COLOR is set', () => {
    const coloured = fakeTty();
    const first = openDisplay({ logLevel: 'info', stream: coloured.stream, env: {} });
    first.logger.warn('x');
    first.close();
    expect(coloured.text()).toContain('\x1b[33mWARN \x1b[0m');
    const plain = fakeTty();
    const second = openDisplay({ logLevel: 'info', stream: plain.stream, env: { NO_COLOR: '1' } });
    second.logger.warn('x');
    second.close();
    expect(plain.text()).not.toContain('\x1b[33m');
    expect(plain.text()).toMatch(/WARN {2}x\n$/);
  });

  it('keeps no status line on a dumb terminal (TERM=dumb): lines only, pretty and without cursor controls', () => {
    const tty = fakeTty();
    const display = openDisplay({ logLevel: 'info', stream: tty.stream, env: { TERM: 'dumb' } });
    expect(display.statusLine).toBeUndefined();
    display.logger.warn('x');
    display.close();
    expect(tty.text()).toMatch(/WARN {2}x\n$/);
    expect(tty.text()).not.toContain('\x1b[');
  });

  it('leaves the end record out: the summary printed after it says the same', () => {
    const tty = fakeTty();
    const display = openDisplay({ logLevel: 'info', stream: tty.stream, env: {} });
    display.logger.info({ event: 'run.start' }, 'job started');
    display.logger.info({ event: 'run.end' }, 'job ended');
    display.close();
    expect(tty.text()).toContain('job started');
    expect(tty.text()).not.toContain('job ended');
  });

  it('writes JSON lines when told to, even on a terminal', () => {
    const tty = fakeTty();
    const display = openDisplay({ logLevel: 'info', stream: tty.stream, env: {}, logFormat: 'json' });
    display.logger.info('x');
    display.close();
    expect(JSON.parse(tty.screen()[0] ?? '')).toMatchObject({ level: 'info', msg: 'x' });
  });
});

describe('display off a terminal', () => {
  it('writes JSON lines with no colour and no status line', () => {
    const writes: string[] = [];
    const stream = {
      isTTY: false,
      write: (text: string) => writes.push(text) > 0,
    } as unknown as NodeJS.WriteStream;
    const display = openDisplay({ logLevel: 'info', stream, env: { FORCE_COLOR: '1' } });
    display.logger.warn('plain');
    expect(display.statusLine).toBeUndefined();
    expect(JSON.parse(writes[0] ?? '')).toMatchObject({ level: 'warn', msg: 'plain' });
  });
});
