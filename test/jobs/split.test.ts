import { describe, expect, it } from 'vitest';
import type { ItemResult } from '../../src/engine/job.js';
import { ServiceError } from '../../src/errors.js';
import { eachItem } from '../../src/jobs/_single.js';
import { sendSplitting } from '../../src/jobs/_split.js';

const signal = new AbortController().signal;

describe('sendSplitting', () => {
  it('settles every item once with its index in the first list, also after splitting around a rejected one', async () => {
    const items = ['a', 'b', 'c', 'BAD', 'e', 'f', 'g'];
    const sent: string[][] = [];
    const settled: [string, number, boolean][] = [];
    await sendSplitting(
      items,
      async (part) => {
        sent.push([...part]);
        if (part.includes('BAD')) {
          throw new ServiceError('HTTP_STATUS', 'the service said 400', { status: 400, attempts: 1 });
        }
        return part.map((value) => ({ ok: true, value: value.toUpperCase() }) as ItemResult<string>);
      },
      (item, result, index) => settled.push([item, index, result.ok]),
      'item',
    );
    expect(sent.length).toBeGreaterThan(1);
    expect(
      settled.map(([item, index]) => [item, index]).sort((x, y) => (x[1] as number) - (y[1] as number)),
    ).toEqual(items.map((item, index) => [item, index]));
    expect(settled.filter(([, , ok]) => !ok).map(([item]) => item)).toEqual(['BAD']);
  });

  it.each([
    [404, 'a wrong endpoint'],
    [405, 'a method the address does not take'],
    [415, 'a body the service cannot read'],
  ])(
    'does not split on %i (%s): no half of the items changes it, so the request fails once',
    async (status) => {
      const sent: string[][] = [];
      const failure = sendSplitting(
        ['a', 'b', 'c', 'd'],
        async (part) => {
          sent.push([...part]);
          throw new ServiceError('HTTP_STATUS', `the service said ${status}`, { status, attempts: 1 });
        },
        () => {
          throw new Error('nothing is settled: the request as a whole failed');
        },
        'point',
      );
      await expect(failure).rejects.toMatchObject({ code: 'HTTP_STATUS', context: { status } });
      expect(sent).toEqual([['a', 'b', 'c', 'd']]);
    },
  );

  it.each([413, 414, 422])('splits on %i, which blames what the request carries', async (status) => {
    const sent: number[] = [];
    await sendSplitting(
      ['a', 'b'],
      async (part) => {
        sent.push(part.length);
        if (part.length > 1) throw new ServiceError('HTTP_STATUS', 'too big', { status, attempts: 1 });
        return part.map((value) => ({ ok: true, value }) as ItemResult<string>);
      },
      () => {},
      'point',
    );
    expect(sent).toEqual([2, 1, 1]);
  });
});

describe('eachItem', () => {
  it('answers by the keys the engine gives, and keys the items itself when none are given', async () => {
    let keyed = 0;
    const execute = eachItem(
      (item: number) => {
        keyed++;
        return `own:${item}`;
      },
      async (item: number) => item * 10,
    );
    const given = await execute([1, 2], signal, ['p1', 'p2']);
    expect([...given.entries()]).toEqual([
      ['p1', { ok: true, value: 10 }],
      ['p2', { ok: true, value: 20 }],
    ]);
    expect(keyed).toBe(0);
    const own = await execute([3], signal);
    expect([...own.keys()]).toEqual(['own:3']);
    expect(keyed).toBe(1);
  });
});
