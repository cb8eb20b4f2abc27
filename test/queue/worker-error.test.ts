/**
 * A coordinator stopped by a chunk a worker failed says whose error it is and on which rows: a
 * rejected key or a refused endpoint URL is in that worker's environment, not always in the
 * coordinator's.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, exitStatusOf, ServiceError } from '../../src/errors.js';
import { workersError } from '../../src/queue/_worker-error.js';

const chunk = { seq: 3, firstRow: 200, rows: 100 };

describe("a worker's error at the coordinator", () => {
  it('names the worker and the rows, keeps the code and context, and sends the user to its environment', () => {
    const stored = {
      ...new ServiceError('AUTH_REJECTED', 'the service rejected the API key (401) for geocoding', {
        status: 401,
        hint: 'run again with --resume',
      }).toJSON(),
      worker: 'host-b:4242',
    };
    const error = workersError(JSON.parse(JSON.stringify(stored)), chunk);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.code).toBe('AUTH_REJECTED');
    expect(error.message).toBe(
      'Worker host-b:4242 stopped on chunk 3 (rows 201-300): the service rejected the API key (401) for geocoding',
    );
    expect(error.context).toMatchObject({ status: 401, worker: 'host-b:4242' });
    expect(error.context.hint).toBe(
      "run again with --resume; look in the environment (and the job file) of worker host-b:4242, which may not be this process's",
    );
  });

  it('sends a refused endpoint URL to the environment too, and leaves other codes their own hint', () => {
    const config = workersError(
      {
        ...new ConfigError('job.yaml: GEOBATCH_GEOCODING_URL: the URL carries a credential').toJSON(),
        worker: 'w:1',
      },
      chunk,
    );
    expect(config.code).toBe('WORKER_MISCONFIGURED');
    expect(config.context.hint).toBe(
      "look in the environment (and the job file) of worker w:1, which may not be this process's",
    );
    const quota = workersError(
      {
        ...new ServiceError('QUOTA_EXCEEDED', 'the quota is used up', { hint: 'wait' }).toJSON(),
        worker: 'w:1',
      },
      chunk,
    );
    // A cache a worker cannot open: its password (PGPASSWORD) or its path is the worker's own.
    const cache = workersError(
      { code: 'CACHE_UNUSABLE', message: 'PostgreSQL: empty password returned by client', worker: 'w:2' },
      chunk,
    );
    expect(cache.context.hint).toBe(
      "look in the environment (and the job file) of worker w:2, which may not be this process's",
    );
    expect(quota.code).toBe('QUOTA_EXCEEDED');
    expect(quota.message).toBe('Worker w:1 stopped on chunk 3 (rows 201-300): the quota is used up');
    expect(quota.context.hint).toBe('wait');
  });

  it('stops the coordinator on a setting a worker lacks as WORKER_MISCONFIGURED (exit 1), naming its environment once', () => {
    const lacking = new ConfigError('/jobs/geocode.yaml: no credentials for the geocode job', {
      file: '/jobs/geocode.yaml',
      path: 'service.credentials',
      expected: 'GEOBATCH_API_KEY',
      hint: 'export GEOBATCH_API_KEY in the environment of worker host-c:77, and start it again: a worker reads its own',
    });
    const error = workersError({ ...lacking.toJSON(), worker: 'host-c:77' }, chunk);
    expect(error.code).toBe('WORKER_MISCONFIGURED');
    expect(exitStatusOf(error.code)).toBe(1);
    expect(error.message).toBe(
      'Worker host-c:77 stopped on chunk 3 (rows 201-300), for what its own environment lacks: /jobs/geocode.yaml: no credentials for the geocode job',
    );
    expect(error.context).toMatchObject({
      file: '/jobs/geocode.yaml',
      path: 'service.credentials',
      expected: 'GEOBATCH_API_KEY',
      worker: 'host-c:77',
      hint: 'export GEOBATCH_API_KEY in the environment of worker host-c:77, and start it again: a worker reads its own',
    });
  });

  it("sends a service this worker cannot reach to that worker's address and network", () => {
    const unreachable = workersError(
      {
        code: 'SERVICE_UNREACHABLE',
        message: 'geocoding could not be reached (ENOTFOUND)',
        hint: 'check the address set for geocoding (endpoints.geojson, GEOBATCH_GEOJSON_URL)',
        worker: 'vm:28008',
      },
      chunk,
    );
    expect(unreachable.code).toBe('SERVICE_UNREACHABLE');
    expect(unreachable.context.hint).toBe(
      "check the address set for geocoding (endpoints.geojson, GEOBATCH_GEOJSON_URL); the service's address is read from the environment of worker vm:28008 and reached from its network, which may not be this process's: look there",
    );
  });

  it("sends a service address with a wrong path (ENDPOINT_NOT_FOUND) to that worker's environment", () => {
    const wrong = workersError(
      {
        code: 'ENDPOINT_NOT_FOUND',
        message:
          'geocoding: http://127.0.0.1:4010/wrong/geocode answered 404 as a server answers a path it does not have',
        endpoint: '/wrong/geocode',
        worker: 'vm:31337',
      },
      chunk,
    );
    expect(wrong.code).toBe('ENDPOINT_NOT_FOUND');
    expect(wrong.context).toMatchObject({ endpoint: '/wrong/geocode', worker: 'vm:31337' });
    expect(wrong.context.hint).toBe(
      "the service's address, its path included, is read from the environment of worker vm:31337 (GEOBATCH_EMULATOR_URL or the interface's GEOBATCH_..._URL) or the job file, which may not be this process's: look there",
    );
  });

  it('says "a worker" when the stored error has no worker, and survives a stored null', () => {
    expect(workersError({ code: 'TIMEOUT', message: 'no answer' }, chunk).message).toBe(
      'A worker stopped on chunk 3 (rows 201-300): no answer',
    );
    const none = workersError(null, chunk);
    expect(none.code).toBe('INTERNAL');
    expect(none.message).toBe('A worker stopped on chunk 3 (rows 201-300): an error without a message');
  });
});
