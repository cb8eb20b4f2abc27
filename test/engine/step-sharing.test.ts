/**
 * Steps of one scope share their items in flight (src/engine/_step-sharing.ts): an item whose
 * identical request another step has in flight waits for its answer, and takes it as dedup would;
 * a failure dedup would not remember lets it ask on its own.
 */
import { describe, expect, it } from 'vitest';
import type { Flight } from '../../src/engine/_slots.js';
import { type Owned, SharedAnswers, type Sharer } from '../../src/engine/_step-sharing.js';
import type { ItemResult, Job } from '../../src/engine/job.js';
import { createStepCounters, processSteps, type Step } from '../../src/engine/pipeline.js';
import type { Outcome, ReadItem, Row } from '../../src/types.js';

/** Answers held until the test lets them go, by key; every item sent, in order. */
class Service {
  readonly sent: string[] = [];
  private readonly gates = new Map<string, ((result: ItemResult<string>) => void)[]>();

  async ask(item: string): Promise<ItemResult<string>> {
    this.sent.push(item);
    return new Promise((resolve) => this.gates.set(item, [...(this.gates.get(item) ?? []), resolve]));
  }

  /** Answers the oldest request for `item` in flight, once there is one. */
  async answer(item: string, result: ItemResult<string> = { ok: true, value: `${item}!` }): Promise<void> {
    for (let i = 0; i < 200 && (this.gates.get(item)?.length ?? 0) === 0; i++)
      await new Promise((r) => setTimeout(r, 1));
    const gate = this.gates.get(item)?.shift();
    if (gate === undefined) throw new Error(`no request for ${item} in flight`);
    gate(result);
  }
}

/** A step that asks `service` for its row's `column`, one item a request, writing `out`. */
function asking(service: Service, name: string, column: string, out: string, shares?: string): Step {
  const job: Job<string, string> = {
    kind: 'ask',
    columns: [out],
    plan: (row: Row) => [String(row.fields[column])],
    key: (item) => item,
    async execute(items) {
      const results = await Promise.all(items.map((item) => service.ask(item)));
      return new Map(items.map((item, i) => [item, results[i] as ItemResult<string>]));
    },
    render: (_row, [result]) =>
      result?.ok === true
        ? { ok: true, records: [{ columns: { [out]: result.value } }] }
        : {
            ok: false,
            failure:
              result?.ok === false ? result.failure : { code: 'INTERNAL', message: '?', stage: 'response' },
          },
  };
  return { name, job, ...(shares === undefined ? {} : { shares }) };
}

function rows(pairs: readonly [string, string][]): ReadItem[] {
  return pairs.map(([a, b], index) => ({ kind: 'row', ref: { index, line: index + 2 }, fields: { a, b } }));
}

const waited = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

/** Row 0 goes x -> y, row 1 y -> z: row 0's y reaches the second step while the first asks for it. */
async function run(
  shares: [string | undefined, string | undefined],
  answers: (s: Service) => Promise<void>,
  second: Partial<Step> = {},
) {
  const service = new Service();
  const steps = [
    asking(service, 'from', 'a', 'fa', shares[0]),
    { ...asking(service, 'to', 'b', 'tb', shares[1]), ...second },
  ];
  const counters = createStepCounters(steps);
  const outcomes: Outcome[] = [];
  const done = (async () => {
    for await (const o of processSteps(
      (async function* () {
        yield* rows([
          ['x', 'y'],
          ['y', 'z'],
        ]);
      })(),
      steps,
      { stepCounters: counters, concurrency: 4 },
    ))
      outcomes.push(o);
  })();
  await answers(service);
  await done;
  return { service, counters, outcomes };
}

describe('steps of one scope', () => {
  it('wait for an identical item another step has in flight instead of sending it again', async () => {
    const { service, counters, outcomes } = await run(['geo', 'geo'], async (s) => {
      await s.answer('x');
      // Row 0's y is at the second step now, the first step's request for it still out.
      await waited();
      expect(s.sent).toEqual(['x', 'y']);
      await s.answer('y');
      await s.answer('z');
    });
    expect(service.sent).toEqual(['x', 'y', 'z']);
    expect(outcomes.map((o) => (o.status === 'ok' ? o.records[0]?.columns : o.issue.code))).toEqual([
      { fa: 'x!', tb: 'y!' },
      { fa: 'y!', tb: 'z!' },
    ]);
    // Counted where it was saved: the second step's item answered by an identical item's request.
    expect(counters.map((c) => [c.counters.itemsSent, c.counters.dedupHits])).toEqual([
      [2, 0],
      [1, 1],
    ]);
  });

  it('take a failure dedup would remember (NO_MATCH), as their own', async () => {
    const { service, outcomes, counters } = await run(['geo', 'geo'], async (s) => {
      await s.answer('x');
      await waited();
      expect(s.sent).toEqual(['x', 'y']);
      await s.answer('y', { ok: false, failure: { code: 'NO_MATCH', message: 'no y', stage: 'response' } });
    });
    // Row 1 failed at the first step: its z was never asked.
    expect(service.sent).toEqual(['x', 'y']);
    expect(outcomes.map((o) => (o.status === 'ok' ? 'ok' : `${o.issue.code}@${o.issue.step}`))).toEqual([
      'NO_MATCH@to',
      'NO_MATCH@from',
    ]);
    expect(counters[1]?.counters.dedupHits).toBe(1);
  });

  it('ask on their own when the request they waited on failed on transient grounds', async () => {
    const { service, outcomes, counters } = await run(['geo', 'geo'], async (s) => {
      await s.answer('x');
      await waited();
      await s.answer('y', {
        ok: false,
        failure: { code: 'TIMEOUT', message: 'y timed out', stage: 'request' },
      });
      // The second step asks for y itself now.
      await s.answer('y');
    });
    expect(service.sent).toEqual(['x', 'y', 'y']);
    expect(
      outcomes.map((o) => (o.status === 'ok' ? o.records[0]?.columns : `${o.issue.code}@${o.issue.step}`)),
    ).toEqual([{ fa: 'x!', tb: 'y!' }, 'TIMEOUT@from']);
    // Not counted as saved: the second step sent it.
    expect(counters[1]?.counters.dedupHits).toBe(0);
    expect(counters[1]?.counters.itemsSent).toBe(1);
  });

  it('ask on their own when the request they waited on got bodies that were not JSON through its attempts', async () => {
    const { service, outcomes, counters } = await run(['geo', 'geo'], async (s) => {
      await s.answer('x');
      await waited();
      // The client retried the cut bodies as transport accidents, then gave up: transient too.
      await s.answer('y', {
        ok: false,
        failure: {
          code: 'RESPONSE_INVALID',
          message: 'not JSON, after 6 attempts',
          stage: 'response',
          attempts: 6,
        },
      });
      await s.answer('y');
    });
    expect(service.sent).toEqual(['x', 'y', 'y']);
    expect(
      outcomes.map((o) => (o.status === 'ok' ? o.records[0]?.columns : `${o.issue.code}@${o.issue.step}`)),
    ).toEqual([{ fa: 'x!', tb: 'y!' }, 'RESPONSE_INVALID@from']);
    expect(counters[1]?.counters.dedupHits).toBe(0);
  });

  it("never wait from a step whose lookups claim items among a distributed run's chunks", async () => {
    // The second step's items go through a lookup that claims them (queue/_shared-flights.ts):
    // waiting on the first step's flight instead, no claim covered them and another chunk bought them.
    const claiming = {
      claimsItems: true,
      lookup: async () => new Map<string, ItemResult<unknown>>(),
      remember: () => {},
    };
    const { service, outcomes } = await run(
      ['geo', 'geo'],
      async (s) => {
        await s.answer('x');
        await waited();
        await s.answer('y');
        // The second step asked for y itself, beside the first step's request.
        await s.answer('y');
        await s.answer('z');
      },
      { answers: claiming },
    );
    expect(service.sent.filter((item) => item === 'y')).toHaveLength(2);
    expect(outcomes.every((o) => o.status === 'ok')).toBe(true);
  });

  it('are the only ones sharing: steps of other scopes, or of none, ask on their own', async () => {
    for (const shares of [
      ['geo', 'other'],
      [undefined, undefined],
    ] as [string | undefined, string | undefined][]) {
      const { service } = await run(shares, async (s) => {
        await s.answer('x');
        await waited();
        await s.answer('y');
        await s.answer('y');
        await s.answer('z');
      });
      expect(service.sent.sort(), String(shares)).toEqual(['x', 'y', 'y', 'z']);
    }
  });
});

describe('SharedAnswers', () => {
  const flight = (key: string): Flight => ({ key, item: key, row: 0, waiters: [], batch: undefined });
  function sharer(): Sharer & { got: [string, unknown][] } {
    const got: [string, unknown][] = [];
    return { got, fromOther: (f, result) => got.push([f.key, result]), flushOwn: () => {} };
  }

  it('lets go of what its owner will not send, and only that: the waiters ask on their own', () => {
    const shared = new SharedAnswers();
    const [owner, waiter] = [sharer(), sharer()];
    const [sent, unsent] = [flight('a'), flight('b')];
    shared.claim(owner, sent);
    shared.claim(owner, unsent);
    shared.join(shared.inFlight('a') as Owned, waiter, flight('a'));
    shared.join(shared.inFlight('b') as Owned, waiter, flight('b'));
    shared.letGo(owner, (f) => f === sent);
    expect(waiter.got).toEqual([['b', undefined]]);
    expect(shared.inFlight('b')).toBeUndefined();
    // Held only while in flight: the answer goes to the waiter, and the entry with it.
    shared.settled(sent, { ok: true, value: 1 });
    expect(waiter.got).toEqual([
      ['b', undefined],
      ['a', { ok: true, value: 1 }],
    ]);
    expect(shared.inFlight('a')).toBeUndefined();
  });

  it('stops the steps when asked, also while a step waits on another one’s request', async () => {
    const service = new Service();
    const steps = [asking(service, 'from', 'a', 'fa', 'geo'), asking(service, 'to', 'b', 'tb', 'geo')];
    const controller = new AbortController();
    const run = (async () => {
      for await (const _ of processSteps(
        (async function* () {
          yield* rows([
            ['x', 'y'],
            ['y', 'z'],
          ]);
        })(),
        steps,
        { signal: controller.signal },
      ));
    })();
    await service.answer('x');
    await waited();
    expect(service.sent).toEqual(['x', 'y']);
    controller.abort();
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
