import { describe, expect, it, vi } from 'vitest';
import { STEP_BATCH_WAIT_MS } from '../../src/engine/_batcher.js';
import { createCounters } from '../../src/engine/counters.js';
import type { Job } from '../../src/engine/job.js';
import {
  createStepCounters,
  pipelineColumns,
  processSteps,
  type Step,
  type StepCounters,
} from '../../src/engine/pipeline.js';
import { isGeobatchError, ServiceError } from '../../src/errors.js';
import { isPlanIssue, pointKey, readPoint } from '../../src/jobs/_fields.js';
import type { Outcome, ReadItem, Row } from '../../src/types.js';

function rows(values: readonly (string | null)[]): ReadItem[] {
  return values.map((value, index) =>
    value === null
      ? {
          kind: 'issue',
          ref: { index, line: index + 2 },
          stage: 'input',
          code: 'INPUT_MALFORMED',
          message: 'bad',
        }
      : { kind: 'row', ref: { index, line: index + 2 }, fields: { name: value } },
  );
}

async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) {
    await Promise.resolve();
    yield item;
  }
}

/** A step that reads `column`, fails rows whose value is in `failOn`, and adds `<out>` = value + suffix. */
function step(
  name: string,
  column: string,
  out: string,
  options: { failOn?: string[]; explode?: boolean; place?: boolean } = {},
): Step {
  const job: Job<string, string> = {
    kind: name,
    columns: [out],
    plan(row: Row) {
      const value = row.fields[column];
      if (typeof value !== 'string')
        return { code: 'FIELD_MISSING', message: `${column}: missing`, field: column };
      return [value];
    },
    key: (item) => item,
    batching: { maxItems: 3, lingerMs: 0 },
    async execute(items) {
      return new Map(
        items.map((item) => [
          item,
          options.failOn?.includes(item)
            ? {
                ok: false as const,
                failure: { code: 'NO_MATCH' as const, message: `no ${item}`, stage: 'request' as const },
              }
            : { ok: true as const, value: `${item}+${name}` },
        ]),
      );
    },
    render(_row, [result]) {
      if (result === undefined || !result.ok)
        return {
          ok: false,
          failure:
            result?.ok === false ? result.failure : { code: 'INTERNAL', message: '?', stage: 'response' },
          // As a point job places a failed row where it read it.
          ...(options.place ? { geometry: { type: 'Point' as const, coordinates: [8.4, 49] } } : {}),
        };
      const records = [{ columns: { [out]: result.value } }];
      if (options.explode) records.push({ columns: { [out]: `${result.value}#2` } });
      return { ok: true, records };
    },
  };
  return { name, job };
}

async function collect(items: ReadItem[], steps: Step[]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for await (const outcome of processSteps(from(items), steps, { window: 4, concurrency: 2 }))
    out.push(outcome);
  return out;
}

/** A first step that answers one row at a time, `ms` each, without batching. */
function slowStep(ms: number): Step {
  return {
    name: 'slow',
    job: {
      ...step('slow', 'name', 'a').job,
      batching: undefined,
      async execute(items: readonly string[]) {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return new Map(items.map((item) => [item, { ok: true as const, value: `${item}+slow` }]));
      },
    } as Job<string, string>,
  };
}

describe('processSteps', () => {
  it('feeds each step the columns the steps before it added, and writes them all as one job’s columns', async () => {
    const steps = [step('first', 'name', 'a'), step('second', 'a', 'b')];
    const outcomes = await collect(rows(['x', 'y']), steps);
    expect(pipelineColumns(steps)).toEqual(['a', 'b']);
    expect(outcomes.map((o) => (o.status === 'ok' ? o.records : o.issue.code))).toEqual([
      [{ columns: { a: 'x+first', b: 'x+first+second' } }],
      [{ columns: { a: 'y+first', b: 'y+first+second' } }],
    ]);
    // The row leaves with the input's own fields only: the added columns are in its records.
    expect(outcomes[0]?.row?.fields).toEqual({ name: 'x' });
  });

  it('passes a row that failed at a step through the later steps untouched, naming the step, in order', async () => {
    const steps = [
      step('first', 'name', 'a', { failOn: ['y'] }),
      step('second', 'a', 'b', { failOn: ['z+first'] }),
    ];
    const counters = createStepCounters(steps);
    const out: Outcome[] = [];
    for await (const o of processSteps(from(rows(['x', 'y', null, 'z', 'w'])), steps, {
      stepCounters: counters,
    }))
      out.push(o);
    expect(out.map((o) => o.ref.index)).toEqual([0, 1, 2, 3, 4]);
    expect(out.map((o) => (o.status === 'ok' ? 'ok' : `${o.issue.code}@${o.issue.step}`))).toEqual([
      'ok',
      'NO_MATCH@first',
      'INPUT_MALFORMED@first',
      'NO_MATCH@second',
      'ok',
    ]);
    // The second step never planned the rows that had failed before it.
    expect(counters[1]?.counters.itemsPlanned).toBe(3);
    expect(counters[1]?.passedThrough).toBe(2);
    expect(counters[0]?.counters.rowsFailed).toBe(2);
    expect((counters[1]?.counters.rowsFailed ?? 0) - (counters[1]?.passedThrough ?? 0)).toBe(1);
  });

  it('writes a failed row where only the last step placed it: an earlier step’s point is not the output’s geometry', async () => {
    const placing = (name: string, column: string, out: string) =>
      step(name, column, out, { failOn: ['y', 'z+first'], place: true });
    const outcomes = await collect(rows(['x', 'y', 'z']), [
      placing('first', 'name', 'a'),
      placing('second', 'a', 'b'),
    ]);
    expect(
      outcomes.map((o) =>
        o.status === 'ok' ? 'ok' : `${o.issue.step}:${JSON.stringify(o.geometry ?? null)}`,
      ),
    ).toEqual([
      'ok',
      // Failed at the first step: the last step's kind (an isochrone's polygon, say) gave it nothing.
      'first:null',
      'second:{"type":"Point","coordinates":[8.4,49]}',
    ]);
  });

  it('hands a later step the row’s point when a step gave the row a line, and writes the line', async () => {
    // A track's last fix (match) and a trip's last stop carry their line as geometry.
    const line: Step = {
      name: 'line',
      job: {
        kind: 'line',
        columns: ['l'],
        plan: () => ['x'],
        key: (item: string) => item,
        async execute(items: readonly string[]) {
          return new Map(items.map((item) => [item, { ok: true as const, value: item }]));
        },
        render: (row: Row) => ({
          ok: true,
          records: [
            {
              columns: { l: 'yes' },
              geometry:
                row.fields.name === 'last'
                  ? {
                      type: 'LineString',
                      coordinates: [
                        [8, 49],
                        [9, 50],
                      ],
                    }
                  : { type: 'Point', coordinates: [8.5, 49.5] },
            },
          ],
        }),
      } satisfies Job<string, string>,
    };
    const reader: Step = {
      name: 'reader',
      job: {
        kind: 'reader',
        columns: ['at'],
        plan(row: Row) {
          if (row.geometry?.type !== 'Point')
            return { code: 'FIELD_MISSING', message: `no point: ${row.geometry?.type}`, field: 'lon' };
          return [row.geometry.coordinates.join(' ')];
        },
        key: (item: string) => item,
        async execute(items: readonly string[]) {
          return new Map(items.map((item) => [item, { ok: true as const, value: item }]));
        },
        render: (_row: Row, [result]) =>
          result?.ok === true
            ? { ok: true, records: [{ columns: { at: result.value } }] }
            : { ok: false, failure: { code: 'INTERNAL', message: '?', stage: 'response' } },
      } satisfies Job<string, string>,
    };
    const input: ReadItem[] = ['first', 'last'].map((name, index) => ({
      kind: 'row',
      ref: { index, line: index + 2 },
      fields: { name },
      geometry: { type: 'Point', coordinates: [7, 48] },
    }));
    const outcomes = await collect(input, [line, reader]);
    expect(outcomes.map((o) => (o.status === 'ok' ? o.records : o.issue.message))).toEqual([
      [{ columns: { l: 'yes', at: '8.5 49.5' }, geometry: { type: 'Point', coordinates: [8.5, 49.5] } }],
      [
        {
          columns: { l: 'yes', at: '7 48' },
          geometry: {
            type: 'LineString',
            coordinates: [
              [8, 49],
              [9, 50],
            ],
          },
        },
      ],
    ]);
  });

  it("lets a later step read its default lon/lat from one source, the steps' columns over the input's", async () => {
    // A first step that writes `lon`/`lat` (a geocode with an empty prefix) into rows whose input
    // has `Lat`/`Lng`; the second reads its point from default columns, as a matrix origin does.
    const adds: Step = {
      name: 'adds',
      job: {
        kind: 'adds',
        columns: ['lon', 'lat'],
        plan: () => ['x'],
        key: (item: string) => item,
        async execute(items: readonly string[]) {
          return new Map(items.map((item) => [item, { ok: true as const, value: item }]));
        },
        render: () => ({ ok: true, records: [{ columns: { lon: '8.3979', lat: '49.0083' } }] }),
      },
    };
    const reads: Step = {
      name: 'reads',
      job: {
        kind: 'reads',
        columns: ['at'],
        plan: (row: Row) => {
          const point = readPoint(row, {}, { geometry: false });
          return isPlanIssue(point) ? point : [pointKey(point)];
        },
        key: (item: string) => item,
        async execute(items: readonly string[]) {
          return new Map(items.map((item) => [item, { ok: true as const, value: item }]));
        },
        render: (_row: Row, [result]) => ({
          ok: true,
          records: [{ columns: { at: result?.ok === true ? (result.value as string) : null } }],
        }),
      },
    };
    const input: ReadItem[] = [
      { kind: 'row', ref: { index: 0, line: 2 }, fields: { Lat: '52.52', Lng: '13.4' } },
    ];
    const [outcome] = await collect(input, [adds, reads]);
    expect(outcome?.status === 'ok' && outcome.records[0]?.columns.at).toBe('8.397900,49.008300');
  });

  it('fails a row for which a middle step wrote several records, and lets the last step write several', async () => {
    const middle = await collect(rows(['x']), [
      step('first', 'name', 'a', { explode: true }),
      step('second', 'a', 'b'),
    ]);
    expect(middle[0]?.status === 'failed' && middle[0].issue).toMatchObject({
      code: 'INTERNAL',
      step: 'first',
    });
    const last = await collect(rows(['x']), [
      step('first', 'name', 'a'),
      step('second', 'a', 'b', { explode: true }),
    ]);
    expect(last[0]?.status === 'ok' && last[0].records.length).toBe(2);
  });

  it('keeps the earlier steps’ columns in the records of a last step that failed in part', async () => {
    // A last step like a matrix origin with one failed pair: a failed row that still writes its parts.
    const partial: Step = {
      name: 'pairs',
      job: {
        kind: 'pairs',
        columns: ['pair'],
        plan: () => [],
        key: (item: string) => item,
        execute: async () => new Map(),
        render: () => ({
          ok: false,
          failure: { code: 'RETRIES_EXHAUSTED', stage: 'request', message: '1 of 2 destinations failed' },
          records: [{ columns: { pair: 'P1' } }, { columns: { pair: null }, error: 'RETRIES_EXHAUSTED' }],
        }),
      },
    };
    const [outcome] = await collect(rows(['x']), [step('first', 'name', 'a'), partial]);
    expect(outcome).toMatchObject({
      status: 'failed',
      row: { fields: { name: 'x' } },
      issue: { code: 'RETRIES_EXHAUSTED', step: 'pairs' },
      records: [
        { columns: { a: 'x+first', pair: 'P1' } },
        { columns: { a: 'x+first', pair: null }, error: 'RETRIES_EXHAUSTED' },
      ],
    });
  });

  it('packs a later step’s batches full while an earlier step still answers, instead of one per linger', async () => {
    // The first step answers one row at a time, 2 ms each, two at once: the second step's rows
    // trickle in far slower than its 1 ms linger.
    const slow = slowStep(2);
    const sizes: number[] = [];
    const packed = step('packed', 'a', 'b');
    const batching = { maxItems: 50, lingerMs: 1 };
    const counted: Step = {
      name: 'packed',
      job: {
        ...(packed.job as Job<string, string>),
        batching,
        async execute(items: readonly string[], signal: AbortSignal) {
          sizes.push(items.length);
          return (packed.job as Job<string, string>).execute(items, signal);
        },
      } as Job<string, string>,
    };
    const names = Array.from({ length: 120 }, (_, i) => `r${i}`);
    const out: Outcome[] = [];
    for await (const outcome of processSteps(from(rows(names)), [slow, counted], {
      window: 1000,
      concurrency: 2,
    }))
      out.push(outcome);
    expect(out.map((o) => o.status === 'ok' && o.records[0]?.columns.b)).toEqual(
      names.map((name) => `${name}+slow+packed`),
    );
    expect(sizes).toEqual([50, 50, 20]);
    // The window still bounds the wait: a full window sends the batch its head row waits in.
    sizes.length = 0;
    for await (const _ of processSteps(from(rows(names)), [slow, counted], { window: 16, concurrency: 2 }));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(120);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(16);
  });

  it('sends a later step’s partial batch after STEP_BATCH_WAIT_MS, so that rows finish and checkpoints come', async () => {
    vi.useFakeTimers();
    try {
      // The first step answers a row every 100 ms: 120 rows take 12 s, far longer than the wait.
      const slow = slowStep(100);
      const sent: { size: number; at: number }[] = [];
      const packed = step('packed', 'a', 'b');
      const counted: Step = {
        name: 'packed',
        job: {
          ...(packed.job as Job<string, string>),
          batching: { maxItems: 500, lingerMs: 1 },
          async execute(items: readonly string[], signal: AbortSignal) {
            sent.push({ size: items.length, at: Date.now() });
            return (packed.job as Job<string, string>).execute(items, signal);
          },
        } as Job<string, string>,
      };
      const names = Array.from({ length: 120 }, (_, i) => `r${i}`);
      const start = Date.now();
      const out: Outcome[] = [];
      const done = (async () => {
        for await (const outcome of processSteps(from(rows(names)), [slow, counted], {
          window: 1000,
          concurrency: 1,
        }))
          out.push(outcome);
      })();
      await vi.advanceTimersByTimeAsync(13_000);
      await done;
      expect(out).toHaveLength(120);
      expect(sent.reduce((sum, s) => sum + s.size, 0)).toBe(120);
      // Two batches left part-full, one wait apart; the last with the end of the first step.
      expect(sent.length).toBe(3);
      expect((sent[0]?.at ?? 0) - start).toBeGreaterThanOrEqual(STEP_BATCH_WAIT_MS);
      expect((sent[0]?.at ?? 0) - start).toBeLessThan(STEP_BATCH_WAIT_MS + 200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shares the wait among later steps that batch, so that a row waits STEP_BATCH_WAIT_MS in all', async () => {
    vi.useFakeTimers();
    try {
      const sent: { step: string; at: number }[] = [];
      const packed = (name: string, column: string, out: string): Step => {
        const base = step(name, column, out);
        return {
          name,
          job: {
            ...(base.job as Job<string, string>),
            batching: { maxItems: 500, lingerMs: 1 },
            async execute(items: readonly string[], signal: AbortSignal) {
              sent.push({ step: name, at: Date.now() });
              return (base.job as Job<string, string>).execute(items, signal);
            },
          } as Job<string, string>,
        };
      };
      const names = Array.from({ length: 120 }, (_, i) => `r${i}`);
      const start = Date.now();
      const out: Outcome[] = [];
      const done = (async () => {
        for await (const outcome of processSteps(
          from(rows(names)),
          [slowStep(100), packed('second', 'a', 'b'), packed('third', 'b', 'c')],
          { window: 1000, concurrency: 1 },
        ))
          out.push(outcome);
      })();
      // Each waited the whole 5 s before: the first row came out after 10 s, no checkpoint before.
      await vi.advanceTimersByTimeAsync(STEP_BATCH_WAIT_MS + 300);
      expect(out.length).toBeGreaterThan(0);
      await vi.advanceTimersByTimeAsync(13_000);
      await done;
      expect(out).toHaveLength(120);
      const first = (name: string) => (sent.find((s) => s.step === name)?.at ?? 0) - start;
      expect(first('second')).toBeGreaterThanOrEqual(STEP_BATCH_WAIT_MS / 2);
      expect(first('second')).toBeLessThan(STEP_BATCH_WAIT_MS / 2 + 200);
      expect(first('third')).toBeLessThan(STEP_BATCH_WAIT_MS + 300);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts a stopped pipeline’s rows truly: no negative failures, and the run’s totals from every step', async () => {
    // Step two stops the run at its first request (a rejected key), with a row failed at step one
    // already inside it behind rows it had not answered.
    const stopping: Step = {
      name: 'second',
      job: {
        ...(step('second', 'a', 'b').job as Job<string, string>),
        batching: undefined,
        async execute() {
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw new ServiceError('AUTH_REJECTED', 'key rejected', { status: 401 });
        },
      } as Job<string, string>,
    };
    const counters = createStepCounters([step('first', 'name', 'a', { failOn: ['b'] }), stopping]);
    const run = createCounters();
    let error: unknown;
    try {
      for await (const _ of processSteps(
        from(rows(['a', 'b', 'c'])),
        [step('first', 'name', 'a', { failOn: ['b'] }), stopping],
        { window: 8, concurrency: 2, stepCounters: counters, counters: run },
      ));
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('AUTH_REJECTED');
    const [first, second] = counters as [StepCounters, StepCounters];
    expect(first.counters.rowsRead).toBe(3);
    // b failed at step one and never left step two: it is neither passed through nor failed there.
    expect(second.passedThrough).toBe(0);
    expect(second.counters.rowsFailed - second.passedThrough).toBe(0);
    expect(second.counters.rowsRead).toBe(3);
    // Two rows reached step two (a and c, ok at step one); b came in failed, which is not reaching it.
    expect(second.passedIn).toBe(1);
    expect(second.counters.rowsRead - second.passedIn).toBe(first.counters.rowsOk);
    // Nothing left the pipeline, yet the run counts what its steps did.
    expect(run.rowsRead).toBe(3);
    expect(run.rowsEmitted).toBe(0);
    expect(run.itemsPlanned).toBe(first.counters.itemsPlanned + second.counters.itemsPlanned);
    expect(run.itemsPlanned).toBeGreaterThan(0);
  });
});
