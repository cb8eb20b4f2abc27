import { afterEach, describe, expect, it } from 'vitest';
import { TokenManager } from '../../src/client/token.js';
import { clearSecrets, scrub } from '../../src/secrets.js';

afterEach(() => clearSecrets());

function setup(ttlMs = 10_000, skewMs = 2_000) {
  let t = 0;
  let fetches = 0;
  let release: (() => void) | undefined;
  let gate = false;
  const manager = new TokenManager({
    ttlMs,
    skewMs,
    now: () => t,
    fetch: async () => {
      fetches++;
      const n = fetches;
      if (gate) await new Promise<void>((resolve) => (release = resolve));
      return `token-number-${n}`;
    },
  });
  return {
    manager,
    fetches: () => fetches,
    advance: (ms: number) => (t += ms),
    hold: () => (gate = true),
    open: () => release?.(),
  };
}

describe('TokenManager', () => {
  it('keeps the current token and the one before it scrubbed, and releases older ones', async () => {
    const s = setup(10_000, 2_000);
    for (let i = 0; i < 4; i++) {
      await s.manager.refresh();
      s.advance(8_000);
    }
    // A process refreshing every few minutes for weeks held every token it ever had.
    expect(scrub('token-number-1 token-number-2 token-number-3 token-number-4')).toBe(
      'token-number-1 token-number-2 [redacted] [redacted]',
    );
  });

  it('fetches once for many concurrent callers (single flight)', async () => {
    const s = setup();
    s.hold();
    const all = Promise.all(Array.from({ length: 32 }, () => s.manager.refresh()));
    await Promise.resolve();
    s.open();
    const tokens = await all;
    expect(new Set(tokens)).toEqual(new Set(['token-number-1']));
    expect(s.fetches()).toBe(1);
  });

  it('serves the cached token until ttl minus skew after the fetch was sent, then refreshes', async () => {
    const s = setup(10_000, 2_000);
    await s.manager.refresh();
    s.advance(7_999);
    expect(s.manager.current()).toBe('token-number-1');
    s.advance(1);
    expect(s.manager.current()).toBeUndefined();
    expect(await s.manager.refresh()).toBe('token-number-2');
    expect(s.fetches()).toBe(2);
  });

  it('drops a rejected token once, even when many callers report it', async () => {
    const s = setup();
    const old = await s.manager.refresh();
    s.manager.invalidate(old);
    const fresh = await s.manager.refresh();
    s.manager.invalidate(old);
    expect(s.manager.current()).toBe(fresh);
    expect(s.fetches()).toBe(2);
  });

  it('registers every token as a secret the moment it arrives', async () => {
    const s = setup();
    const token = await s.manager.refresh();
    expect(scrub(`Bearer ${token}`)).toBe('Bearer [redacted]');
  });

  it('lets one caller abort its wait without failing the shared fetch for the others', async () => {
    const s = setup();
    s.hold();
    const controller = new AbortController();
    const aborted = s.manager.refresh(controller.signal);
    const other = s.manager.refresh();
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED' });
    s.open();
    expect(await other).toBe('token-number-1');
  });

  it('passes a failed fetch to every waiter and tries again on the next call', async () => {
    let n = 0;
    const manager = new TokenManager({
      ttlMs: 1000,
      skewMs: 0,
      fetch: async () => {
        n++;
        if (n === 1) throw new Error('token endpoint down');
        return 'second-token';
      },
    });
    await expect(Promise.all([manager.refresh(), manager.refresh()])).rejects.toThrow('token endpoint down');
    expect(await manager.refresh()).toBe('second-token');
  });
});
