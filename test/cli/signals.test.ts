import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stopOnSignals } from '../../src/cli/_signals.js';

let stop: ReturnType<typeof stopOnSignals> | undefined;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  stop?.dispose();
  vi.useRealTimers();
});

function setUp(graceMs = 10_000) {
  const exits: number[] = [];
  const lines: string[] = [];
  stop = stopOnSignals({ graceMs, exit: (code) => exits.push(code), write: (text) => lines.push(text) });
  return { exits, lines, signal: stop.signal };
}

describe('stopping on signals', () => {
  it('aborts the run on the first SIGTERM, and exits 1 if the orderly stop has not ended it within the grace time', () => {
    const { exits, lines, signal } = setUp(10_000);
    process.emit('SIGTERM', 'SIGTERM');
    expect(signal.aborted).toBe(true);
    expect(lines.join('')).toContain('SIGTERM: stopping: the rows done are kept');
    vi.advanceTimersByTime(9_999);
    expect(exits).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toBe(
      'geobatch: the run did not stop within 10 s of SIGTERM: exiting now; the last checkpoint is kept\n',
    );
  });

  it('stops the run the orderly way on SIGHUP (a closed terminal, a dropped SSH session)', () => {
    const { exits, lines, signal } = setUp();
    process.emit('SIGHUP', 'SIGHUP');
    expect(signal.aborted).toBe(true);
    expect(exits).toEqual([]);
    expect(lines.join('')).toContain('SIGHUP: stopping: the rows done are kept');
  });

  it('exits 1 at once on a second signal', () => {
    const { exits, lines } = setUp();
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toContain('SIGINT again: exiting now');
  });

  it('forgets the grace time and its listeners once the run has ended', () => {
    const listeners = process.listenerCount('SIGTERM');
    const { exits } = setUp(1_000);
    process.emit('SIGTERM', 'SIGTERM');
    stop?.dispose();
    vi.advanceTimersByTime(5_000);
    expect(exits).toEqual([]);
    expect(process.listenerCount('SIGTERM')).toBe(listeners);
  });
});
