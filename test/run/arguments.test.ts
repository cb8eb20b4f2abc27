import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// Through the package's exports: these are the library's entries.
import {
  createJob,
  createLogger,
  type JobClient,
  resolveMapping,
  runJob,
  UsageError,
} from '../../src/index.js';

const context = {
  client: {} as JobClient,
  mapping: resolveMapping({ lon: 'x', lat: 'y' }),
  options: {},
  endpoints: {},
  readRows: () => {
    throw new Error('elevation reads no side input');
  },
  resolvePath: (path: string) => path,
};

async function refusal(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof UsageError) return error;
  throw new Error(`not refused with a UsageError: ${String(error)}`);
}

describe('createJob', () => {
  it('refuses a mapping passed as its context, naming the part missing', async () => {
    const error = await refusal(createJob('elevation', resolveMapping({ lon: 'x' }) as never));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(
      'createJob: expected `context.client` to be a client (createClient), got nothing',
    );
    expect(error.context).toMatchObject({ path: 'context.client', received: 'nothing' });
  });

  it('refuses a mapping not resolved (`lon: "x"`), which the kind would read as a field source', async () => {
    const error = await refusal(createJob('elevation', { ...context, mapping: { lon: 'x' } as never }));
    expect(error.context).toMatchObject({
      path: 'context.mapping.lon',
      expected: '{ column } or { value }, as resolveMapping gives it',
      received: 'the string "x"',
    });
  });

  it('builds a job of a kind that reads no side input without readRows and resolvePath', async () => {
    const { readRows: _r, resolvePath: _p, ...bare } = context;
    await expect(createJob('elevation', bare)).resolves.toMatchObject({ kind: 'elevation' });
  });

  it('refuses a kind that reads a side input without readRows, naming the file', async () => {
    const { readRows: _r, ...bare } = context;
    const options = { destinations: { path: 'stores.csv' } };
    const error = await refusal(createJob('matrix', { ...bare, mapping: resolveMapping({}), options }));
    expect(error.context).toMatchObject({
      path: 'context.readRows',
      expected: 'a function: a matrix job reads stores.csv',
      received: 'nothing',
    });
  });

  it('builds a job from a whole context', async () => {
    await expect(createJob('elevation', context)).resolves.toMatchObject({ kind: 'elevation' });
  });
});

describe('runJob', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'geobatch-arguments-'));
  const base = {
    job: await createJob('elevation', context),
    jobFingerprint: 'x',
    input: { path: join(dir, 'in.csv'), format: 'csv' as const },
    output: { path: join(dir, 'out.csv'), format: 'csv' as const },
    report: { path: join(dir, 'out.errors.csv'), format: 'csv' as const },
    logger: createLogger({ level: 'error' }),
    checkpoint: { enabled: false },
  };

  it('refuses a spec without a logger, naming it, instead of a TypeError reading `warn`', async () => {
    const error = await refusal(runJob({ ...base, logger: undefined as never }));
    expect(error.message).toBe(
      'runJob: expected `spec.logger` to be a pino logger (createLogger), got nothing',
    );
    expect(error.context).toMatchObject({ path: 'spec.logger' });
  });

  it('refuses a spec without its report, which must be one or null', async () => {
    const error = await refusal(runJob({ ...base, report: undefined as never }));
    expect(error.context).toMatchObject({
      path: 'spec.report',
      expected: '{ path, format }, or null for no error report',
      received: 'nothing',
    });
  });

  it('refuses a run report or a signal of another type, naming it, not with a bare Node error', async () => {
    const report = await refusal(runJob({ ...base, runReport: 5 as never }));
    expect(report.code).toBe('USAGE');
    expect(report.context).toMatchObject({ path: 'spec.runReport', received: 'number 5' });
    const signal = await refusal(runJob({ ...base, signal: 'x' as never }));
    expect(signal.message).toBe(
      'runJob: expected `spec.signal` to be an AbortSignal (AbortController.signal), got the string "x"',
    );
  });

  it('refuses a part no RunSpec has, naming the nearest one, as a job file refuses a misspelt key', async () => {
    const error = await refusal(runJob({ ...base, concurency: 3 } as never));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe('runJob: unknown part `spec.concurency`');
    expect(error.context).toMatchObject({ path: 'spec.concurency', received: 'concurency' });
    const near = await refusal(runJob({ ...base, loger: base.logger } as never));
    expect(near.message).toBe('runJob: unknown part `spec.loger` (did you mean `logger`?)');
  });

  it('refuses an output format it does not write, naming those it does', async () => {
    const output = { path: join(dir, 'out.xlsx'), format: 'xlsx' as never };
    const error = await refusal(runJob({ ...base, output }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe(
      'runJob: expected `spec.output.format` to be one of csv, ndjson, geojson, gpkg, got the string "xlsx"',
    );
  });
});
