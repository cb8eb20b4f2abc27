import { afterEach, describe, expect, it } from 'vitest';
import { holdSignals, letSignalsGo, listenEarly, stopListening } from '../../src/cli/_early-signals.js';
import { stopOnSignals } from '../../src/cli/_signals.js';

afterEach(() => stopListening());

function listen() {
  const exits: number[] = [];
  const lines: string[] = [];
  listenEarly({ exit: (code) => exits.push(code), write: (text) => lines.push(text) });
  return { exits, lines };
}

describe('a signal before a command listens for its own', () => {
  it('says what stopped the process, and exits as a stopped run (1), not silently with 130', () => {
    const { exits, lines } = listen();
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    expect(lines.join('')).toBe('\ngeobatch: stopped by SIGINT, before any request was sent\n');
    process.emit('SIGTERM', 'SIGTERM');
    expect(lines.at(-1)).toBe('\ngeobatch: stopped by SIGTERM, before any request was sent\n');
    // The terminal closed, or the SSH session dropped, while the command started.
    process.emit('SIGHUP', 'SIGHUP');
    expect(exits).toEqual([1, 1, 1]);
    expect(lines.at(-1)).toBe('\ngeobatch: stopped by SIGHUP, before any request was sent\n');
  });

  it('is left in place while a run holds the signals: its first signal stops the run, not the process', () => {
    const { exits, lines } = listen();
    const listeners = process.listenerCount('SIGINT');
    const run = stopOnSignals({ exit: (code) => exits.push(code), write: (text) => lines.push(text) });
    try {
      // Both listen: removing the early one would let Node drop a signal not yet dispatched.
      expect(process.listenerCount('SIGINT')).toBe(listeners + 1);
      process.emit('SIGINT', 'SIGINT');
      expect(run.signal.aborted).toBe(true);
      expect(exits).toEqual([]);
      expect(lines.join('')).toContain('SIGINT: stopping: the rows done are kept');
    } finally {
      run.dispose();
    }
    expect(process.listenerCount('SIGINT')).toBe(listeners);
    // The run is over: a signal now ends the process at once, without the words about requests.
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toBe('\ngeobatch: stopped by SIGINT\n');
  });

  it('stays quiet until the last of several holders lets go', () => {
    const { exits } = listen();
    const first = holdSignals();
    const second = holdSignals();
    first();
    first();
    process.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([]);
    second();
    process.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([1]);
  });

  it('ends a command that stops nothing in order of its own (the demo) at once', () => {
    const { exits, lines } = listen();
    letSignalsGo();
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    expect(lines).toEqual(['\ngeobatch: stopped by SIGINT\n']);
  });
});
