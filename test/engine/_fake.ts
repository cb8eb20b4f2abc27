/** In-memory jobs and inputs with controllable delays and failures, for engine and run tests. */

import { batched } from '../../src/batches.js';
import type { Batching, ItemResult, Job, PlanIssue } from '../../src/engine/job.js';
import type { ReadItem, Row } from '../../src/types.js';

export interface FakeItem {
  readonly row: number;
  readonly key: string;
}

export interface FakeJobOptions {
  batching?: Batching<FakeItem>;
  /** Keys a row needs; default one key per row: `k<index>`. */
  keys?: (row: Row) => readonly string[] | PlanIssue;
  /** Milliseconds before a request answers. */
  delay?: (items: readonly FakeItem[]) => number;
  /** Throw this (or return undefined to answer). */
  fail?: (items: readonly FakeItem[]) => unknown;
  /** Leave this key out of the answer. */
  omit?: (key: string) => boolean;
  local?: (item: FakeItem) => string | undefined;
  /** Called when a request starts, before its delay. */
  onExecute?: (items: readonly FakeItem[]) => void;
}

export interface FakeJob extends Job<FakeItem, string> {
  /** Every request's items, in send order. */
  readonly calls: FakeItem[][];
  /** The keys the engine gave with each request, in send order. */
  readonly keysGiven: (readonly string[] | undefined)[];
  /** Rows whose items were sent. */
  readonly executedRows: Set<number>;
  readonly concurrency: { now: number; max: number };
}

export function fakeJob(options: FakeJobOptions = {}): FakeJob {
  const calls: FakeItem[][] = [];
  const keysGiven: (readonly string[] | undefined)[] = [];
  const executedRows = new Set<number>();
  const concurrency = { now: 0, max: 0 };
  return {
    kind: 'fake',
    columns: ['value'],
    calls,
    keysGiven,
    executedRows,
    concurrency,
    ...(options.batching === undefined ? {} : { batching: options.batching }),
    plan(row) {
      const keys = options.keys?.(row) ?? [`k${row.ref.index}`];
      if (!Array.isArray(keys)) return keys as PlanIssue;
      return (keys as string[]).map((key) => ({ row: row.ref.index, key }));
    },
    key: (item) => item.key,
    ...(options.local === undefined ? {} : { resolveLocally: options.local }),
    async execute(items, signal, keys) {
      calls.push([...items]);
      keysGiven.push(keys === undefined ? undefined : [...keys]);
      for (const item of items) executedRows.add(item.row);
      concurrency.now++;
      concurrency.max = Math.max(concurrency.max, concurrency.now);
      options.onExecute?.(items);
      try {
        const ms = options.delay?.(items) ?? 0;
        if (ms > 0) await sleep(ms, signal);
        const error = options.fail?.(items);
        if (error !== undefined) throw error;
        const answers = new Map<string, ItemResult<string>>();
        for (const item of items)
          if (!options.omit?.(item.key)) answers.set(item.key, { ok: true, value: `v:${item.key}` });
        return answers;
      } finally {
        concurrency.now--;
      }
    },
    render(_row, results) {
      const bad = results.find((r) => !r.ok);
      if (bad !== undefined && !bad.ok) return { ok: false, failure: bad.failure };
      return {
        ok: true,
        records: [{ columns: { value: results.map((r) => (r.ok ? r.value : '')).join('|') } }],
      };
    },
  };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function fakeRow(index: number, fields: Row['fields'] = { id: String(index) }): Row {
  return { kind: 'row', ref: { index, line: index + 2 }, fields };
}

/** An input of `count` rows, counting how many were pulled; `issueAt` indexes are unreadable records. */
/** fakeInput's rows in batches of `size` (see batches.ts); `batches` counts the batches taken. */
export function fakeBatchedInput(count: number, size: number) {
  const state = { pulled: 0, batches: 0 };
  const items = batched(async function* () {
    for (let from = 0; from < count; from += size) {
      const batch = Array.from({ length: Math.min(size, count - from) }, (_, i) => fakeRow(from + i));
      state.pulled += batch.length;
      state.batches++;
      yield batch;
    }
  });
  return { items, state };
}

export function fakeInput(count: number, issueAt: ReadonlySet<number> = new Set()) {
  const state = { pulled: 0 };
  async function* items(): AsyncGenerator<ReadItem> {
    for (let index = 0; index < count; index++) {
      state.pulled++;
      if (issueAt.has(index)) {
        yield {
          kind: 'issue',
          ref: { index, line: index + 2 },
          stage: 'input',
          code: 'INPUT_MALFORMED',
          message: 'bad',
        };
      } else yield fakeRow(index);
    }
  }
  return { items: items(), state };
}
