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

function setUp(graceMs = 10_000, drainMs?: number) {
  const exits: number[] = [];
  const lines: string[] = [];
  stop = stopOnSignals({
    graceMs,
    exit: (code) => exits.push(code),
    write: (text) => lines.push(text),
    ...(drainMs === undefined ? {} : { drainMs }),
  });
  return { exits, lines, signal: stop.signal, drain: stop.drain };
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
      'geobatch: the run did not stop within 10 s of SIGTERM: exiting now; the last checkpoint written, if any, is kept for --resume\n',
    );
  });

  it('says what an exit at once leaves behind as its caller tells it (a worker has no checkpoint)', () => {
    const exits: number[] = [];
    const lines: string[] = [];
    stop = stopOnSignals({
      exit: (code) => exits.push(code),
      write: (text) => lines.push(text),
      leaves: 'chunks in hand go to another worker',
    });
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toBe('geobatch: SIGINT again: exiting now; chunks in hand go to another worker\n');
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

  it('has no wait for the requests in flight unless one is asked for', () => {
    expect(setUp().drain).toBeUndefined();
  });

  it('with a drain: the first signal lets requests come back, the second cuts that wait, the third exits', () => {
    const { exits, lines, signal, drain } = setUp(10_000, 5_000);
    expect(drain?.ms).toBe(5_000);
    process.emit('SIGINT', 'SIGINT');
    expect(signal.aborted).toBe(true);
    expect(drain?.cut?.aborted).toBe(false);
    expect(lines.join('')).toContain(
      'SIGINT: stopping: no more rows read; any requests in flight get up to 5 s to come back, the rows done are kept (SIGINT again drops the requests in flight)',
    );
    process.emit('SIGINT', 'SIGINT');
    expect(drain?.cut?.aborted).toBe(true);
    expect(exits).toEqual([]);
    expect(lines.at(-1)).toBe(
      'geobatch: SIGINT again: dropping the requests in flight (SIGINT once more quits at once)\n',
    );
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toContain('SIGINT again: exiting now');
  });

  it('with a drain: gives the stop the drain and the grace time together before it exits', () => {
    const { exits, lines } = setUp(10_000, 5_000);
    process.emit('SIGTERM', 'SIGTERM');
    vi.advanceTimersByTime(14_999);
    expect(exits).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toContain('the run did not stop within 15 s of SIGTERM');
  });
});
