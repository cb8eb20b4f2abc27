import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, encodeAddition } from '../../src/client/index.js';
import type { AddressSearchResponse } from '../../src/contract/index.js';
import type { RequestInfo } from '../../src/emulator/index.js';
import { clearSecrets } from '../../src/secrets.js';
import type { Rig } from './_emulator.js';
import { rig } from './_emulator.js';
import { json, startServer } from './_server.js';

let r: Rig;
const seen: RequestInfo[] = [];
const KARLSRUHE = { Branches: '100', LocX: 8.4037, LocY: 49.0069, MaxRadius: 50_000 };

beforeAll(async () => {
  r = await rig({ channel: 'geobatch-test' }, { onRequest: (info) => seen.push(info) });
});
afterAll(async () => {
  await r.stop();
  clearSecrets();
});

function requestsSince(mark: number): RequestInfo[] {
  return seen.slice(mark);
}

describe('address search', () => {
  it('searches around a position, sending Branches and the configured channel', async () => {
    const res = await r.client.addressSearch.byBranchesAndPosition({ ...KARLSRUHE, Top: 5 });
    expect(res.StatusCode).toBe(0);
    expect(res.AddressItems.length).toBeGreaterThan(0);
    expect(res.AddressItems.length).toBeLessThanOrEqual(5);
    const query = seen.at(-1)?.query;
    expect(query?.get('Branches')).toBe('100');
    expect(query?.get('Channel')).toBe('geobatch-test');
  });

  it('pages through every page up to Paging.MaxPage and stops there', async () => {
    const mark = seen.length;
    const pages: AddressSearchResponse[] = [];
    for await (const page of r.client.addressSearch.pages('ByBranchesAndPosition', {
      ...KARLSRUHE,
      Top: 20,
    })) {
      pages.push(page);
    }
    const maxPage = pages[0]?.Paging.MaxPage ?? 0;
    expect(maxPage).toBeGreaterThan(1);
    expect(pages.map((p) => p.Paging.Page)).toEqual(Array.from({ length: maxPage }, (_, i) => i + 1));
    expect(requestsSince(mark)).toHaveLength(maxPage);
  });

  it('stops paging at maxPages, starting from the given Page', async () => {
    const mark = seen.length;
    const pages: number[] = [];
    for await (const page of r.client.addressSearch.pages(
      'ByBranchesAndPosition',
      { ...KARLSRUHE, Top: 5, Page: 2 },
      { maxPages: 2 },
    )) {
      pages.push(page.Paging.Page);
    }
    expect(pages).toEqual([2, 3]);
    expect(requestsSince(mark)).toHaveLength(2);
  });

  it('fetches records by supplier key and by identifier, raw or URL-encoded', async () => {
    const search = await r.client.addressSearch.byBranchesAndPosition({ ...KARLSRUHE, Top: 2 });
    const ids = search.AddressItems.map((i) => i.BasicData.Identifiers);
    const byKey = await r.client.addressSearch.byCustomerId(ids.map((i) => i.ProviderForeignKey));
    expect(byKey.AddressItems.map((i) => i.BasicData.Identifiers.ProviderForeignKey).sort()).toEqual(
      ids.map((i) => i.ProviderForeignKey).sort(),
    );
    const first = ids[0];
    if (first === undefined) throw new Error('no hit to look up');
    for (const identifier of [first.YMIDUrlEncoded, first.YMID]) {
      const one = await r.client.addressSearch.byIdentifier(identifier);
      expect(one.Paging.MaxCount).toBe(1);
      expect(one.AddressItems[0]?.BasicData.Identifiers.YMID).toBe(first.YMID);
    }
  });

  it('sends Addition so that the service computes distances to the reference point', async () => {
    const Addition = encodeAddition({
      LocXForDistanceCalculation: 8.4037,
      LocYForDistanceCalculation: 49.0069,
    });
    const res = await r.client.addressSearch.byBranchesAndPosition({ ...KARLSRUHE, Top: 3, Addition });
    expect(res.AddressItems.every((i) => (i.BasicData.Geo.Distance ?? '') !== '')).toBe(true);
  });

  it('turns a non-zero StatusCode into SERVICE_REPORTED with the public report', async () => {
    await expect(r.client.addressSearch.byIdentifier('AAAAAAAAAAAAAAAAAAAAAA==')).rejects.toMatchObject({
      code: 'SERVICE_REPORTED',
      context: { service: 'addressSearch', detail: { StatusCode: '3', PublicReport: expect.any(String) } },
    });
  });

  it("fails a request without Branches with HTTP_STATUS and the service's German message", async () => {
    await expect(r.client.addressSearch.byBranchesAndPosition({ LocX: 8.4, LocY: 49 })).rejects.toMatchObject(
      {
        code: 'HTTP_STATUS',
        context: { status: 400, detail: { publicReport: 'Eine oder mehrere Branchen sind erforderlich.' } },
      },
    );
  });

  it('refuses an empty list of supplier keys before sending', async () => {
    const mark = seen.length;
    await expect(r.client.addressSearch.byCustomerId([])).rejects.toMatchObject({ code: 'USAGE' });
    expect(requestsSince(mark)).toHaveLength(0);
  });
});

describe('a client without the address search endpoint', () => {
  it('rejects its calls with CONFIG_INVALID, never throws them where .catch() would not see it', async () => {
    const client = createClient({ credentials: { apiKey: 'k' }, endpoints: {} });
    try {
      for (const call of [
        () => client.addressSearch.byIdentifier('x'),
        () => client.addressSearch.byBranchesAndPosition(KARLSRUHE),
      ]) {
        let thrown: unknown;
        const result = (() => {
          try {
            return call();
          } catch (error) {
            thrown = error;
            return undefined;
          }
        })();
        expect(thrown).toBeUndefined();
        await expect(result).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      }
    } finally {
      await client.close();
    }
  });
});

describe('address search answers that report a problem (spec: 200, empty result, non-zero StatusCode)', () => {
  const empty = { Paging: { Page: 1, MaxPage: 0, Count: 0, MaxCount: 0 }, AddressItems: [] };

  async function answering(body: unknown) {
    const server = await startServer((_, res) => json(res, 200, body));
    const client = createClient({
      endpoints: { addressSearch: server.url },
      credentials: { partner: 'p', partnerKey: 'k' },
    });
    return {
      client,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }

  it('fails only the request on StatusCode 1 with IsRequestAuthenticated true: no code means "login refused"', async () => {
    const { client, close } = await answering({
      ...empty,
      StatusCode: 1,
      IsRequestAuthenticated: true,
      PublicReport: 'Interner Fehler bei der Suche',
    });
    try {
      await expect(client.addressSearch.byBranchesAndPosition(KARLSRUHE)).rejects.toMatchObject({
        code: 'SERVICE_REPORTED',
        context: {
          service: 'addressSearch',
          status: 200,
          detail: { StatusCode: '1', PublicReport: 'Interner Fehler bei der Suche' },
        },
      });
    } finally {
      await close();
    }
  });

  it('stops the run with AUTH_REJECTED when IsRequestAuthenticated is false, whatever the code', async () => {
    const { client, close } = await answering({
      ...empty,
      StatusCode: 7,
      IsRequestAuthenticated: false,
      PublicReport: 'Zugang verweigert',
    });
    try {
      await expect(client.addressSearch.byBranchesAndPosition(KARLSRUHE)).rejects.toMatchObject({
        code: 'AUTH_REJECTED',
        context: { service: 'addressSearch' },
      });
    } finally {
      await close();
    }
  });
});
