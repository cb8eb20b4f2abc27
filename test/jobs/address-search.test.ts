import { describe, expect, it } from 'vitest';
import type { AddressItem, AddressSearchParams, AddressSearchResponse } from '../../src/contract/index.js';
import { createAddressSearchJob } from '../../src/jobs/address-search.js';
import { row, signal } from './_rows.js';

function hit(i: number): AddressItem {
  return {
    BasicData: {
      Identifiers: { YMID: `Y${i}`, YMIDUrlEncoded: `Y${i}`, ProviderForeignKey: `K${i}` },
      Address: { CompanyName: `Firma ${i}`, Zip: '76131', City: 'Karlsruhe', Street: `Weg ${i}` },
      Geo: { XCoord: '8.4', YCoord: '49.0', Distance: String(100 * i) },
      BranchListElements: [
        { BranchCode: '100', BranchText: 'Gesamtsortiment' },
        { BranchCode: '1201', BranchText: 'Gesundheit' },
      ],
    },
  };
}

/** 7 hits in pages of `Top`; records the pages asked for. */
function pagingClient(total: number) {
  const pagesAsked: number[] = [];
  return {
    pagesAsked,
    addressSearch: {
      async *pages(
        _endpoint: 'ByBranchesAndPosition',
        params: AddressSearchParams,
        options?: { maxPages?: number },
      ) {
        const top = params.Top ?? 20;
        const maxPage = Math.max(1, Math.ceil(total / top));
        for (let page = 1; page <= Math.min(maxPage, options?.maxPages ?? maxPage); page++) {
          pagesAsked.push(page);
          const items = Array.from({ length: Math.min(top, total - (page - 1) * top) }, (_, i) =>
            hit((page - 1) * top + i + 1),
          );
          const response: AddressSearchResponse = {
            Paging: { Page: page, MaxPage: maxPage, Count: items.length, MaxCount: total },
            AddressItems: items,
            StatusCode: 0,
          };
          yield response;
        }
      },
    },
  };
}

describe('address-search job', () => {
  it('pages only as far as the nearest N need', async () => {
    const client = pagingClient(7);
    const job = createAddressSearchJob(client, { mapping: {}, branches: '1201', nearest: 4, pageSize: 3 });
    const results = await job.execute([{ key: 'p', params: { LocX: 8.4, LocY: 49 } }], signal);
    const value = [...results.values()][0];
    expect(value).toMatchObject({ ok: true, value: { total: 7 } });
    expect(value?.ok && value.value.hits.map((h) => h.BasicData.Identifiers.YMID)).toEqual([
      'Y1',
      'Y2',
      'Y3',
      'Y4',
    ]);
    expect(client.pagesAsked).toEqual([1, 2]);
  });

  it('writes the nearest hit and the count, or one row per hit when exploding', async () => {
    const client = pagingClient(2);
    const r = row({ lon: '8.4', lat: '49' });
    const nearest = createAddressSearchJob(client, { mapping: {}, branches: '1201', nearest: 2 });
    const [result] = [
      ...(await nearest.execute([{ key: 'p', params: { LocX: 8.4, LocY: 49 } }], signal)).values(),
    ];
    if (result === undefined) throw new Error('none');
    expect(nearest.render(r, [result])).toMatchObject({
      ok: true,
      records: [
        {
          columns: {
            near_count: 2,
            near_rank: 1,
            near_name: 'Firma 1',
            near_distance_m: 100,
            near_category: 'Gesundheit',
          },
        },
      ],
    });
    const explode = createAddressSearchJob(client, {
      mapping: {},
      branches: '1201',
      nearest: 2,
      mode: 'explode',
    });
    const rendered = explode.render(r, [result]);
    expect(rendered.ok && rendered.records.map((x) => x.columns.near_rank)).toEqual([1, 2]);
  });

  it('keeps a row with no hits, with a zero count and empty hit columns', () => {
    const job = createAddressSearchJob(pagingClient(0), { mapping: {}, branches: '1201', mode: 'explode' });
    const rendered = job.render(row({ lon: '8.4', lat: '49' }), [
      { ok: true, value: { total: 0, hits: [] } },
    ]);
    expect(rendered).toMatchObject({
      ok: true,
      records: [{ columns: { near_count: 0, near_name: null, near_rank: null } }],
    });
  });
});
