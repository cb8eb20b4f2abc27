import { describe, expect, it } from 'vitest';
import { EMULATOR_DEFAULTS, resolveOptions, validateFaults } from '../../src/emulator/_options.js';
import { startEmulator } from '../../src/emulator/index.js';
import { configError } from '../fixtures/config-error.js';

describe('emulator options', () => {
  it('fills the documented defaults', () => {
    const o = resolveOptions();
    expect(o).toMatchObject({ port: 0, host: '127.0.0.1', tokenTtlSeconds: 600, faults: {} });
    expect(o.credentials).toEqual({
      partner: 'demo-partner',
      partnerKey: 'demo-partner-key',
      apiKey: 'demo-api-key',
      systemPartner: 'demo-system',
      securityID: 'demo-security-id',
    });
    expect(EMULATOR_DEFAULTS.keepAliveTimeoutMs).toBeGreaterThanOrEqual(60_000);
  });

  it.each([
    [{ error500: 2 }, 'faults.error500', 'a number between 0 and 1'],
    [{ latency: { fixedMs: -1 } }, 'faults.latency.fixedMs', 'a number of milliseconds from 0 to 600000'],
    [{ rateLimit: { rps: 0 } }, 'faults.rateLimit.rps', 'a positive number'],
    [{ retryAfter: { form: 'never' } }, 'faults.retryAfter.form', "'seconds', 'http-date' or 'alternate'"],
    [{ interfaces: ['mail'] }, 'faults.interfaces', expect.stringContaining('addressSearch')],
    [{ quotaAfter: 1.5 }, 'faults.quotaAfter', 'a non-negative integer'],
    [{ typo: 1 }, 'faults.typo', 'a known fault setting'],
    [{ latency: { fixedMS: 100 } }, 'faults.latency.fixedMS', 'one of fixedMs, jitterMs'],
    [{ retryAfter: { second: 1 } }, 'faults.retryAfter.second', 'one of seconds, form'],
    [{ rateLimit: { rps: 5, bursts: 2 } }, 'faults.rateLimit.bursts', 'one of rps, burst'],
  ])('rejects %j naming the setting', (faults, path, expected) => {
    const error = configError(() => validateFaults(faults));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ path, expected });
    expect(error.message).toContain(`Expected \`${path}\``);
  });

  it('rejects an option it does not know, which it would otherwise start without', () => {
    const error = configError(() => resolveOptions({ fault: { error503: 1 } } as never));
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', context: { path: 'fault' } });
    expect(error.message).toContain('one of port, host, tokenTtlSeconds, faults');
  });

  it('rejects a bad port, TTL or credential', () => {
    expect(configError(() => resolveOptions({ port: 70000 })).context.path).toBe('port');
    expect(configError(() => resolveOptions({ tokenTtlSeconds: 0 })).context.path).toBe('tokenTtlSeconds');
    expect(configError(() => resolveOptions({ credentials: { apiKey: '' } })).context.path).toBe(
      'credentials.apiKey',
    );
  });

  it('says a port that is taken is taken, as USAGE naming the port, not as a raw listen error', async () => {
    const first = await startEmulator();
    try {
      const port = Number(new URL(first.urls.elevation).port);
      const error = await startEmulator({ port }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'USAGE',
        message: `The emulator cannot listen on 127.0.0.1:${port}: another process listens there (EADDRINUSE)`,
        context: {
          field: 'port',
          received: String(port),
          hint: 'Choose another port, or 0 for any free one.',
        },
      });
    } finally {
      await first.close();
    }
  });

  it('refuses to start with invalid options and accepts overridden credentials', async () => {
    await expect(startEmulator({ faults: { hang: -1 } })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    const e = await startEmulator({ credentials: { apiKey: 'other-key' } });
    try {
      const url = `${e.urls.elevation}/api/v2/Elevation/point?latitude=50&longitude=10&apiKey=`;
      expect((await fetch(`${url}other-key`)).status).toBe(200);
      expect((await fetch(`${url}demo-api-key`)).status).toBe(401);
      expect(e.credentials.basicHeader).toBe(
        `Basic ${Buffer.from('demo-partner:demo-partner-key').toString('base64')}`,
      );
    } finally {
      await e.close();
    }
  });

  it('builds every index before resolving when asked to preload', async () => {
    const e = await startEmulator({ preload: true });
    try {
      const res = await fetch(`${e.urls.addressSearch}/ByCustomerId?CustomerIds=GN0288116364`, {
        headers: { authorization: e.credentials.basicHeader },
      });
      expect(((await res.json()) as { Paging: { MaxCount: number } }).Paging.MaxCount).toBe(2);
    } finally {
      await e.close();
    }
  });
});
