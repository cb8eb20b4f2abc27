import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/client/_turns.js';

/** One turn of the event loop: what Turns scheduled before this resolves first. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function queue(turns: Turns, n: number) {
  const done: number[] = [];
  for (let i = 0; i < n; i++) void turns.next().then(() => done.push(i));
  return done;
}

describe('Turns', () => {
  it('lets answers through a few a turn, in the order they came, none at once', async () => {
    const turns = new Turns(2, 10);
    const done = queue(turns, 5);
    await Promise.resolve();
    expect(done).toEqual([]);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      await turn();
      seen.push(done.length);
    }
    expect(seen).toEqual([2, 4, 5]);
    expect(done).toEqual([0, 1, 2, 3, 4]);
  });

  it('never leaves more than its bound waiting after a turn: the rest goes at once', async () => {
    const turns = new Turns(1, 3);
    const done = queue(turns, 10);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      await turn();
      seen.push(done.length);
    }
    expect(seen).toEqual([7, 8, 9, 10]);
  });

  it('keeps the order through a queue that never empties, and starts again once it has', async () => {
    const turns = new Turns(4, 1_000_000);
    const done: number[] = [];
    let next = 0;
    // Six come a turn and four go: the queue grows, and its spent head is dropped on the way.
    for (let t = 0; t < 600; t++) {
      for (let k = 0; k < 6; k++) {
        const i = next++;
        void turns.next().then(() => done.push(i));
      }
      await turn();
    }
    expect(done.length).toBe(2400);
    while (done.length < next) await turn();
    expect(done).toEqual(Array.from({ length: next }, (_, i) => i));
    const later = queue(turns, 1);
    await turn();
    expect(later).toEqual([0]);
  });
});
