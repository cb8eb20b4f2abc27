import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { applyOverrides } from '../../src/config/overrides.js';
import { UsageError } from '../../src/errors.js';

const config = parseJobFile('job: elevation\ninput: in.csv\noutput: out.csv\n', '/jobs/elev.yaml', {});

describe('applyOverrides', () => {
  it('resolves command-line paths against the working directory and moves the report with the output', () => {
    const next = applyOverrides(config, { output: 'elsewhere/result.ndjson' });
    expect(next.output.path).toBe(path.resolve('elsewhere/result.ndjson'));
    expect(next.output.format).toBe('ndjson');
    expect(next.errors.path).toBe(path.resolve('elsewhere/result.errors.csv'));
    expect(next.input).toBe(config.input);
  });

  it('sets concurrency and rate, 0 meaning no client-side rate limit', () => {
    const next = applyOverrides(config, { concurrency: 32, rate: 0 });
    expect(next.service.throttle?.global).toMatchObject({ concurrency: 32, rate: null });
  });

  it('rejects a bad flag value with the flag and the value', () => {
    expect(() => applyOverrides(config, { concurrency: 0 })).toThrow(UsageError);
    try {
      applyOverrides(config, { format: 'xlsx' });
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).code).toBe('USAGE');
      expect((error as UsageError).context).toMatchObject({ field: 'format', received: 'xlsx' });
    }
  });
});
