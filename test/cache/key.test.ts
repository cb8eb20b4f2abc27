import { describe, expect, it } from 'vitest';
import { answerParams, classify, ITEM_POLICIES } from '../../src/cache/_kinds.js';
import { canonicalJson, EMBEDDED_EMULATOR, scopeOf, serviceIdentity } from '../../src/cache/key.js';

describe('cache keys', () => {
  it('name a service by scheme, host, port and path: never user info, query or fragment', () => {
    expect(serviceIdentity('https://user:secret@Geo.Example.com/api_rst/v2/geojson/?apiKey=k#x')).toBe(
      'https://geo.example.com:443/api_rst/v2/geojson',
    );
    expect(serviceIdentity('http://127.0.0.1:8787/api_rst/v2/geojson')).toBe(
      'http://127.0.0.1:8787/api_rst/v2/geojson',
    );
    // An emulator on another port is another service: its answers never stand in for the real one's.
    expect(serviceIdentity('http://127.0.0.1:8788/api_rst/v2/geojson')).not.toBe(
      serviceIdentity('http://127.0.0.1:8787/api_rst/v2/geojson'),
    );
    expect(serviceIdentity(undefined)).toBe('unconfigured');
  });

  it('give equal parameters equal text whatever their order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });

  it("change with every parameter that changes the answer, and not with the output's shape", () => {
    const policy = ITEM_POLICIES.matrix;
    if (policy === undefined) throw new Error('no matrix policy');
    const describe = (options: Record<string, unknown>) =>
      scopeOf({
        interface: policy.interface,
        service: EMBEDDED_EMULATOR,
        operation: policy.operation,
        params: answerParams(policy, options),
        format: policy.format,
      }).description;
    expect(describe({})).toBe(describe({ speedProfile: 'FAST', prefix: 'x_', tileSize: 10, lingerMs: 5 }));
    expect(describe({ speedProfile: 'SLOW' })).not.toBe(describe({}));
    // An option geobatch does not know yet is part of the key: a new scope, never a wrong answer.
    expect(describe({ avoidTolls: true })).not.toBe(describe({}));
  });

  it('keep answers and "nothing found", never a failure to get an answer', () => {
    const geocode = ITEM_POLICIES.geocode;
    const customers = ITEM_POLICIES['customer-lookup'];
    if (geocode === undefined || customers === undefined) throw new Error('no policy');
    expect(classify(geocode, { ok: true, value: { match: { lon: 1 }, candidates: 1 } })).toBe('answer');
    expect(classify(geocode, { ok: true, value: { match: null, candidates: 0 } })).toBe('not-found');
    const notFound = { code: 'NOT_FOUND', stage: 'response', message: 'supplier key `x` not found' } as const;
    expect(classify(customers, { ok: false, failure: notFound })).toBe('not-found');
    // Address search by address: the service cannot locate the address (StatusCode 4), an answer
    // about the row like a geocoding no-match, kept for the not-found lifetime, not asked every night.
    const search = ITEM_POLICIES['address-search'];
    if (search === undefined) throw new Error('no policy');
    const cannotLocate = {
      code: 'NO_MATCH',
      stage: 'response',
      message: 'no match: Die Adresse 99999 nirgendwo wurde nicht gefunden.',
      detail: { StatusCode: '4', PublicReport: 'Die Adresse 99999 nirgendwo wurde nicht gefunden.' },
    } as const;
    expect(classify(search, { ok: false, failure: cannotLocate })).toBe('not-found');
    for (const code of ['TIMEOUT', 'RETRIES_EXHAUSTED', 'HTTP_STATUS', 'NETWORK', 'INTERNAL'] as const) {
      expect(classify(geocode, { ok: false, failure: { code, stage: 'request', message: code } })).toBe(
        'skip',
      );
    }
  });
});
