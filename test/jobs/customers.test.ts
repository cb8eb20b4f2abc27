import { describe, expect, it } from 'vitest';
import type { AddressItem, AddressSearchResponse } from '../../src/contract/index.js';
import { createCustomerLookupJob } from '../../src/jobs/customers.js';
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
