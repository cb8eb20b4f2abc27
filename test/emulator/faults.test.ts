import { describe, expect, it } from 'vitest';
import { Faults } from '../../src/emulator/faults.js';
import type { EmulatorHandle, FaultConfig } from '../../src/emulator/index.js';
import { useEmulator } from './_helpers.js';

const emulator = useEmulator();

function elevationUrl(e: EmulatorHandle): string {
  return `${e.urls.elevation}/api/v2/Elevation/point?apiKey=${e.credentials.apiKey}&latitude=50.5&longitude=10.5`;
}

async function withFaults<T>(faults: FaultConfig, fn: (e: EmulatorHandle) => Promise<T>): Promise<T> {
  const e = emulator();
  e.setFaults(faults);
  e.resetStats();
  try {
    return await fn(e);
  } finally {
    e.setFaults({});
  }
}

const lastLog = (e: EmulatorHandle) => e.requestLog().at(-1);

describe('fault injection on a running emulator', () => {
  it('adds the configured latency to every answer', async () => {
    await withFaults({ latency: { fixedMs: 120, jitterMs: 30 } }, async (e) => {
      await fetch(elevationUrl(e));
      const entry = lastLog(e);
      expect((entry?.answeredAt ?? 0) - (entry?.receivedAt ?? 0)).toBeGreaterThanOrEqual(120);
    });
  });

  it.each([
    [500, 'error500'],
    [502, 'error502'],
    [503, 'error503'],
  ] as const)('answers %i when %s is certain', async (status, key) => {
    await withFaults({ [key]: 1 }, async (e) => {
      const res = await fetch(elevationUrl(e));
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ errCode: expect.any(String), publicReport: expect.any(String) });
      expect(e.stats().byInterface.elevation?.byOutcome[String(status)]).toBe(1);
    });
  });

  it('answers 429 with Retry-After in seconds', async () => {
    await withFaults({ error429: 1, retryAfter: { seconds: 2, form: 'seconds' } }, async (e) => {
      const res = await fetch(elevationUrl(e));
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(lastLog(e)?.retryAfterMs).toBe(2000);
    });
  });

  it('answers 429 with an HTTP-date Retry-After that never asks for less than the wait', async () => {
    await withFaults({ error429: 1, retryAfter: { seconds: 2, form: 'http-date' } }, async (e) => {
      const res = await fetch(elevationUrl(e));
      expect(res.status).toBe(429);
      const header = res.headers.get('retry-after') ?? '';
      expect(header).toMatch(/GMT$/);
      const date = Date.parse(header);
      const entry = lastLog(e);
      expect(date % 1000).toBe(0);
      expect(entry?.retryAfterMs).toBe(date - (entry?.answeredAt ?? 0));
      expect(entry?.retryAfterMs).toBeGreaterThanOrEqual(2000);
      expect(entry?.retryAfterMs).toBeLessThan(3000);
    });
  });

  it('alternates the two Retry-After forms by default', async () => {
    await withFaults({ error429: 1 }, async (e) => {
      const headers: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(elevationUrl(e));
        headers.push(res.headers.get('retry-after') ?? '');
      }
      expect(headers[0]).toBe('1');
      expect(headers[1]).toMatch(/GMT$/);
      expect(headers[2]).toBe('1');
      expect(headers[3]).toMatch(/GMT$/);
    });
  });

  it('resets the connection without an answer', async () => {
    await withFaults({ reset: 1 }, async (e) => {
      await expect(fetch(elevationUrl(e))).rejects.toThrow();
      expect(e.stats().byInterface.elevation?.byOutcome.reset).toBe(1);
      expect(lastLog(e)?.outcome).toBe('reset');
    });
  });

  it('hangs until the client gives up', async () => {
    await withFaults({ hang: 1 }, async (e) => {
      await expect(fetch(elevationUrl(e), { signal: AbortSignal.timeout(300) })).rejects.toThrow();
      expect(lastLog(e)).toMatchObject({ outcome: 'hang' });
      expect(lastLog(e)?.answeredAt).toBeUndefined();
    });
  });

  it('answers 200 with a body that is not JSON when malformed', async () => {
    await withFaults({ malformed: 1 }, async (e) => {
      const res = await fetch(elevationUrl(e));
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(() => JSON.parse(text)).toThrow();
    });
  });

  it('limits the request rate with a token bucket and 429 + Retry-After', async () => {
    await withFaults({ rateLimit: { rps: 0.5, burst: 2 }, retryAfter: { form: 'seconds' } }, async (e) => {
      const statuses: number[] = [];
      let retryAfter = '';
      for (let i = 0; i < 3; i++) {
        const res = await fetch(elevationUrl(e));
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get('retry-after') ?? '';
        await res.text();
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(2);
    });
  });

  it('answers 402 once the quota is used up', async () => {
    await withFaults({ quotaAfter: 2 }, async (e) => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(elevationUrl(e));
        statuses.push(res.status);
        if (i === 2) expect(await res.json()).toMatchObject({ errCode: 'QUOTA_EXCEEDED' });
      }
      expect(statuses).toEqual([200, 200, 402]);
    });
  });

  it('restricts random faults to the listed interfaces', async () => {
    await withFaults({ error500: 1, interfaces: ['geocoding'] }, async (e) => {
      expect((await fetch(elevationUrl(e))).status).toBe(200);
      const res = await fetch(`${e.urls.geojson}/geocode?apiKey=${e.credentials.apiKey}`, {
        method: 'POST',
        body: '{}',
      });
      expect(res.status).toBe(500);
    });
  });

  it('replays the same faults from the same seed', async () => {
    const run = () =>
      withFaults({ error500: 0.5, seed: 42 }, async (e) => {
        const out: number[] = [];
        for (let i = 0; i < 12; i++) out.push((await fetch(elevationUrl(e))).status);
        return out;
      });
    const first = await run();
    expect(new Set(first)).toEqual(new Set([200, 500]));
    expect(await run()).toEqual(first);
  });
});

describe('Faults (unit)', () => {
  it('refills the bucket at rps and says how long until the next token', () => {
    let now = 0;
    const faults = new Faults({ rateLimit: { rps: 4, burst: 1 } }, () => now);
    expect(faults.decide('routing')).toBeNull();
    expect(faults.decide('routing')).toEqual({ kind: 'throttle', retryAfterSeconds: 1 });
    now = 250;
    expect(faults.decide('routing')).toBeNull();
  });

  it('rounds an HTTP-date Retry-After up to the next whole second', () => {
    const faults = new Faults({ retryAfter: { form: 'http-date' } });
    const answeredAt = Date.UTC(2024, 0, 1, 12, 0, 0, 1);
    const r = faults.retryAfter(1, answeredAt);
    expect(r.header).toBe('Mon, 01 Jan 2024 12:00:02 GMT');
    expect(r.ms).toBe(1999);
  });
});
