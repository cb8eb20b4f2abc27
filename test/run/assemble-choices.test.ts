import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { applyOverrides } from '../../src/config/overrides.js';
import { isGeobatchError } from '../../src/errors.js';
import { assemble, checkService } from '../../src/run/assemble.js';

const logger = pino({ level: 'silent' });
const job = (extra = '') =>
  parseJobFile(`job: elevation\ninput: in.csv\noutput: out.csv\n${extra}`, '/jobs/elev.yaml', {});

async function specOf(config: ReturnType<typeof job>, reportNamed = false) {
  const { spec, client } = await assemble(config, { logger, dryRun: true, reportNamed });
  await client.close();
  return spec;
}

describe('assembling a run', () => {
  it('writes no error report for output to `-` unless one is named', async () => {
    expect((await specOf(applyOverrides(job(), { output: '-' }))).report).toBeNull();
    const named = await specOf(applyOverrides(job(), { output: '-', errors: 'failed.csv' }), true);
    expect(named.report?.format).toBe('csv');
    const inFile = await specOf(applyOverrides(job('errors: failed.ndjson\n'), { output: '-' }));
    expect(inFile.report).toEqual({ path: '/jobs/failed.ndjson', format: 'ndjson' });
    expect((await specOf(job())).report).toEqual({ path: '/jobs/out.errors.csv', format: 'csv' });
  });

  it('writes a .tsv output with TAB between cells', async () => {
    expect((await specOf(applyOverrides(job(), { output: 'x.tsv' }))).output).toMatchObject({
      format: 'csv',
      delimiter: '\t',
    });
  });

  it('refuses a credential whose variable is unset only when the service would be called, naming the variable', async () => {
    const config = job(
      `service:\n  credentials:\n    apiKey: \${GEOBATCH_TEST_UNSET}\n  endpoints:\n    elevation: http://127.0.0.1:9\n`,
    );
    await expect(specOf(config)).resolves.toBeDefined();
    let error: unknown;
    try {
      checkService(config);
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.message).toBe(
      '/jobs/elev.yaml: service.credentials.apiKey: environment variable GEOBATCH_TEST_UNSET is not set',
    );
    expect(isGeobatchError(error) && error.context.path).toBe('service.credentials.apiKey');
  });

  it("names, in a worker, the coordinator's job file and the worker's environment", () => {
    // The worker reads its own copy of the job file, under a directory of its own, gone once it stops.
    const copy = parseJobFile(
      `job: elevation\ninput: in.csv\noutput: out.csv\nservice:\n  credentials:\n    apiKey: \${MY_GEO_KEY}\n  endpoints:\n    elevation: http://127.0.0.1:9\n`,
      '/tmp/geobatch-worker-1122-x/81e1/jobs/elev.yaml',
      {},
      '/jobs/elev.yaml',
    );
    let error: unknown;
    try {
      checkService(copy, {}, { file: '/jobs/elev.yaml', name: 'vm:1122' });
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.message).toBe(
      '/jobs/elev.yaml: service.credentials.apiKey: environment variable MY_GEO_KEY is not set',
    );
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: '/jobs/elev.yaml',
      hint: 'export MY_GEO_KEY=... in the environment of worker vm:1122, and start it again: a worker reads its own',
    });
  });

  it('says a credential variable is empty, not unset, when it is set to nothing', () => {
    const config = job(
      `service:\n  credentials:\n    apiKey: \${GEOBATCH_TEST_EMPTY}\n  endpoints:\n    elevation: http://127.0.0.1:9\n`,
    );
    let error: unknown;
    try {
      checkService(config, { GEOBATCH_TEST_EMPTY: '' });
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.message).toBe(
      '/jobs/elev.yaml: service.credentials.apiKey: environment variable GEOBATCH_TEST_EMPTY is empty',
    );
    expect(isGeobatchError(error) && error.context.path).toBe('service.credentials.apiKey');
  });

  it('refuses a credential with whitespace around it, naming the variable it came from and never the value', () => {
    const text = (credentials: string) =>
      `job: elevation\ninput: in.csv\noutput: out.csv\nservice:\n${credentials}  endpoints:\n    elevation: http://127.0.0.1:9\n`;
    const cases: [string, Record<string, string>, string][] = [
      [
        '  credentials:\n    apiKey: ${MY_KEY}\n',
        { MY_KEY: 'secret-value-1\r' },
        'service.credentials.apiKey: MY_KEY ends with a carriage return; a credential has none',
      ],
      [
        '',
        { GEOBATCH_API_KEY: ' secret-value-1' },
        'service.credentials.apiKey: GEOBATCH_API_KEY begins with a space',
      ],
    ];
    for (const [credentials, env, message] of cases) {
      const config = parseJobFile(text(credentials), '/jobs/elev.yaml', env);
      let error: unknown;
      try {
        checkService(config, env);
      } catch (caught) {
        error = caught;
      }
      expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
      expect(isGeobatchError(error) && error.message).toContain(message);
      expect(isGeobatchError(error) && error.context.path).toBe('service.credentials.apiKey');
      expect(
        JSON.stringify([isGeobatchError(error) && error.message, isGeobatchError(error) && error.context]),
      ).not.toContain('secret-value-1');
    }
  });

  it("keeps the variable a job file names for a credential, for the service's messages", () => {
    const config = parseJobFile(
      'job: elevation\ninput: in.csv\noutput: out.csv\nservice:\n  credentials:\n    apiKey: ${MY_KEY}\n',
      '/jobs/elev.yaml',
      { MY_KEY: 'k', GEOBATCH_PARTNER: 'p', GEOBATCH_PARTNER_KEY: 'pk' },
    );
    expect(config.service.credentialSources).toEqual({ apiKey: 'MY_KEY' });
    // The embedded emulator's credentials are its own: no variable is named for them.
    const emulated = applyOverrides(config, { service: { endpoints: {}, credentials: { apiKey: 'demo' } } });
    expect(emulated.service.credentialSources).toEqual({});
  });
});
