import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import type { AddressItem, AddressSearchResponse } from '../../src/contract/index.js';
import { createCustomerLookupJob } from '../../src/jobs/customers.js';
import { runJob } from '../../src/run/run.js';
import { json, startServer } from '../client/_server.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { row, signal } from './_rows.js';

function item(key: string, ymid: string, name: string): AddressItem {
  return {
    BasicData: {
      Identifiers: { YMID: ymid, YMIDUrlEncoded: encodeURIComponent(ymid), ProviderForeignKey: key },
      Address: { CompanyName: name, Zip: '76131', City: 'Karlsruhe', Street: 'Weg 1' },
      Geo: { XCoord: '8.4', YCoord: '49.0' },
    },
  };
}

function response(items: AddressItem[]): AddressSearchResponse {
  return {
    Paging: { Page: 1, MaxPage: 1, Count: items.length, MaxCount: items.length },
    AddressItems: items,
    StatusCode: 0,
  };
}

// The service answers in its own order and leaves unknown keys out.
const answer = response([
  item('K2', 'b', 'Zwei GmbH'),
  item('K1', 'z', 'Eins AG'),
  item('K1', 'a', 'Eins AG Filiale'),
]);
const client = {
  calls: [] as string[][],
  addressSearch: {
    byCustomerId: async (ids: readonly string[]) => {
      client.calls.push([...ids]);
      return answer;
    },
  },
};
const base = { mapping: { key: { column: 'supplier_key' } }, baseUrl: 'http://127.0.0.1:1/addresssearch/v2' };

describe('customer-lookup job', () => {
  it('matches answers back by supplier key, not by position, and reports unknown keys', async () => {
    const job = createCustomerLookupJob(client, { ...base, fields: ['company'] });
    const results = await job.execute(['K1', 'K3', 'K2'], signal);
    expect(results.get('K2')).toMatchObject({
      ok: true,
      value: [{ BasicData: { Address: { CompanyName: 'Zwei GmbH' } } }],
    });
    expect(results.get('K3')).toEqual({
      ok: false,
      failure: { code: 'NOT_FOUND', stage: 'response', message: 'supplier key `K3` not found' },
    });
  });

  it('applies the policy for several records under one key', async () => {
    const results = await createCustomerLookupJob(client, base).execute(['K1'], signal);
    const k1 = results.get('K1');
    if (k1 === undefined) throw new Error('missing');
    const r = row({ supplier_key: 'K1' });
    const first = createCustomerLookupJob(client, {
      ...base,
      fields: ['company', 'ymid'],
      onMultiple: 'first',
    }).render(r, [k1]);
    expect(first).toMatchObject({
      ok: true,
      records: [{ columns: { cust_company: 'Eins AG Filiale', cust_ymid: 'a', cust_matches: 2 } }],
    });
    const all = createCustomerLookupJob(client, { ...base, fields: ['ymid'], onMultiple: 'all' }).render(r, [
      k1,
    ]);
    expect(all.ok && all.records.map((x) => x.columns.cust_ymid)).toEqual(['a', 'z']);
    const fail = createCustomerLookupJob(client, { ...base, onMultiple: 'fail' }).render(r, [k1]);
    expect(fail).toMatchObject({ ok: false, failure: { code: 'AMBIGUOUS', stage: 'response' } });
  });

  it('bounds a batch by URL length as well as by count', () => {
    const job = createCustomerLookupJob(client, { ...base, maxUrlLength: 300 });
    const batching = job.batching;
    if (batching?.weight === undefined || batching.maxWeight === undefined) throw new Error('no weight');
    expect(batching.maxItems).toBe(50);
    expect(batching.weight('GN000001')).toBe('GN000001'.length + 3);
    expect(batching.maxWeight).toBe(300 - `${base.baseUrl}/ByCustomerId?CustomerIds=`.length - 64);
  });

  it('refuses a key too long for one request URL, giving its length and the limit', () => {
    const job = createCustomerLookupJob(client, base);
    // 2048 less the URL up to the keys, the 64 bytes kept for the rest, and the encoded pipe.
    const limit = 2048 - `${base.baseUrl}/ByCustomerId?CustomerIds=`.length - 64 - 3;
    expect(limit).toBe(1920);
    expect(job.plan(row({ supplier_key: 'K'.repeat(3000) }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'supplier_key',
      message: 'supplier_key: 3000 characters, too long for one request URL (at most 1920)',
    });
    expect(job.plan(row({ supplier_key: 'K'.repeat(1920) }))).toEqual(['K'.repeat(1920)]);
    // Each ä is 6 bytes URL-encoded (%C3%A4): the limit is in bytes, so both lengths are given.
    expect(job.plan(row({ supplier_key: 'ä'.repeat(400) }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'supplier_key',
      message:
        'supplier_key: 400 characters, 2400 bytes URL-encoded, too long for one request URL (at most 1920 bytes)',
    });
  });

  it('refuses a key that would split into two, naming the column', () => {
    const job = createCustomerLookupJob(client, base);
    expect(job.plan(row({ supplier_key: 'A|B' }))).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'supplier_key',
    });
    expect(job.plan(row({ supplier_key: '' }))).toMatchObject({
      code: 'FIELD_MISSING',
      field: 'supplier_key',
    });
  });
});

describe('customer-lookup on an answer cut short (Paging.MaxCount above the records returned)', () => {
  /** A service that returns at most `cap` records an answer, saying in Paging how many there are. */
  /** K1's failure when its answer, asked alone, is still cut short: 1 of its 2 records came. */
  const CUT_K1 = {
    ok: false,
    failure: {
      code: 'RESPONSE_INVALID',
      stage: 'response',
      message:
        'supplier key `K1`: the answer was cut short (Paging.MaxCount 2, 1 records returned), so its records cannot all be read',
      detail: { MaxCount: '2', returned: '1' },
    },
  };

  function capped(cap: number, known: Record<string, number>) {
    const calls: string[][] = [];
    const port = {
      addressSearch: {
        byCustomerId: async (ids: readonly string[]): Promise<AddressSearchResponse> => {
          calls.push([...ids]);
          const all = ids.flatMap((id) =>
            Array.from({ length: known[id] ?? 0 }, (_, i) => item(id, `${id}-${i}`, `Firma ${id}`)),
          );
          const items = all.slice(0, cap);
          return {
            Paging: {
              Page: 1,
              MaxPage: Math.max(1, Math.ceil(all.length / cap)),
              Count: items.length,
              MaxCount: all.length,
            },
            AddressItems: items,
            StatusCode: 0,
          };
        },
      },
    };
    return { calls, port };
  }

  it('asks the keys of a cut answer again instead of reporting the missing ones NOT_FOUND', async () => {
    const { calls, port } = capped(1, { K1: 1, K2: 1 });
    const results = await createCustomerLookupJob(port, base).execute(['K1', 'K2'], signal);
    expect(results.get('K1')).toMatchObject({
      ok: true,
      value: [{ BasicData: { Address: { CompanyName: 'Firma K1' } } }],
    });
    expect(results.get('K2')).toMatchObject({
      ok: true,
      value: [{ BasicData: { Address: { CompanyName: 'Firma K2' } } }],
    });
    // Cut (2 records, 1 returned): no key of it is taken as whole, and each is asked on its own.
    expect(calls).toEqual([['K1', 'K2'], ['K1'], ['K2']]);
  });

  it('takes no key of a cut answer as whole: a key of two records answered with one is asked again, and fails alone', async () => {
    const { calls, port } = capped(1, { K1: 2, K2: 1 });
    const results = await createCustomerLookupJob(port, base).execute(['K1', 'K2'], signal);
    expect(calls).toEqual([['K1', 'K2'], ['K1'], ['K2']]);
    expect(results.get('K2')).toMatchObject({ ok: true });
    expect(results.get('K1')).toEqual(CUT_K1);
  });

  it('reports NOT_FOUND only for a key missing from a whole answer, asking the rest until one is', async () => {
    const { calls, port } = capped(2, { K1: 1, K2: 1, K3: 1, K4: 1 });
    const results = await createCustomerLookupJob(port, base).execute(['K1', 'K2', 'K3', 'K4', 'K5'], signal);
    for (const key of ['K1', 'K2', 'K3', 'K4']) expect(results.get(key), key).toMatchObject({ ok: true });
    expect(results.get('K5')).toEqual({
      ok: false,
      failure: { code: 'NOT_FOUND', stage: 'response', message: 'supplier key `K5` not found' },
    });
    // 5 keys, 2 records an answer: halved until each answer is whole (K4|K5: 1 record of 1).
    expect(calls).toEqual([
      ['K1', 'K2', 'K3', 'K4', 'K5'],
      ['K1', 'K2', 'K3'],
      ['K1', 'K2'],
      ['K3'],
      ['K4', 'K5'],
    ]);
  });

  it('halves the keys when a cut answer held none of them, and fails a lone key it still cannot see', async () => {
    // Records under keys not asked for fill the answer (a service that matches loosely).
    const calls: string[][] = [];
    const port = {
      addressSearch: {
        byCustomerId: async (ids: readonly string[]): Promise<AddressSearchResponse> => {
          calls.push([...ids]);
          return {
            Paging: { Page: 1, MaxPage: 2, Count: 1, MaxCount: 2 },
            AddressItems: [item('OTHER', 'o', 'Andere')],
            StatusCode: 0,
          };
        },
      },
    };
    const results = await createCustomerLookupJob(port, base).execute(['K1', 'K2'], signal);
    expect(calls).toEqual([['K1', 'K2'], ['K1'], ['K2']]);
    expect(results.get('K1')).toMatchObject(CUT_K1);
  });
});

describe('customer-lookup run against a service that answers one record a request', () => {
  it('writes every row, and the summary counts each HTTP request the asking again took', async () => {
    // The repro: 2 keys sent, 1 record back with Paging { MaxPage: 2, MaxCount: 2 }.
    const server = await startServer((seen, res) => {
      const ids = (new URL(seen.url, 'http://x').searchParams.get('CustomerIds') ?? '').split('|');
      const all = ids.filter((id) => id.startsWith('GN')).map((id) => item(id, `y-${id}`, `Firma ${id}`));
      json(res, 200, {
        Paging: { Page: 1, MaxPage: all.length, Count: Math.min(1, all.length), MaxCount: all.length },
        AddressItems: all.slice(0, 1),
        StatusCode: 0,
        IsRequestAuthenticated: true,
      });
    });
    const client = createClient({
      endpoints: { addressSearch: server.url },
      credentials: { partner: 'p', partnerKey: 'k' },
    });
    try {
      const dir = tempDir();
      const summary = await runJob({
        job: createCustomerLookupJob(client, { ...base, baseUrl: server.url, fields: ['company'] }),
        jobFingerprint: 'customer-lookup:cut',
        input: { path: write(join(dir, 'in.csv'), 'supplier_key\nGN1\nGN2\nXX3\n'), format: 'csv' },
        output: { path: join(dir, 'out.csv'), format: 'csv', formulaGuard: false },
        report: { path: join(dir, 'errors.csv'), format: 'csv' },
        logger: memoryLogger().logger,
        progress: { enabled: false },
        metrics: () => ({ ...client.metrics() }),
      });
      expect(summary.rows).toMatchObject({ read: 3, ok: 2, failed: 1, failedByCode: { NOT_FOUND: 1 } });
      expect(read(join(dir, 'out.csv'))).toContain('Firma GN2');
      // GN1|GN2|XX3 (cut: GN1 only), halved until each answer is whole: XX3's is, and holds nothing.
      expect(server.seen.map((s) => new URL(s.url, 'http://x').searchParams.get('CustomerIds'))).toEqual([
        'GN1|GN2|XX3',
        'GN1|GN2',
        'GN1',
        'GN2',
        'XX3',
      ]);
      expect(summary.requests.http).toBe(server.seen.length);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
