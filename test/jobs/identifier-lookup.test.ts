import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressItem, AddressSearchResponse } from '../../src/contract/index.js';
import { ServiceError } from '../../src/errors.js';
import { createIdentifierLookupJob, readIdentifier } from '../../src/jobs/identifier-lookup.js';
import { runJob } from '../../src/run/run.js';
import { type Rig, rig } from '../client/_emulator.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';
import { row, signal } from './_rows.js';

function item(ymid: string, name: string): AddressItem {
  return {
    BasicData: {
      Identifiers: { YMID: ymid, YMIDUrlEncoded: encodeURIComponent(ymid), ProviderForeignKey: 'GN1' },
      Address: { CompanyName: name, Zip: '76131', City: 'Karlsruhe', Street: '' },
      Geo: { XCoord: '8.4199', YCoord: '49.0078' },
    },
  };
}

const answer = (items: AddressItem[], status = 0): AddressSearchResponse => ({
  Paging: { Page: 1, MaxPage: 1, Count: items.length, MaxCount: items.length },
  AddressItems: items,
  StatusCode: status,
});

const mapping = { id: { column: 'ymid' } };

describe('readIdentifier', () => {
  it('takes a raw YMID and its YMIDUrlEncoded form as the same identifier', () => {
    expect(readIdentifier('/AadklP/MvIhD9lUF7z+Xg==')).toBe('/AadklP/MvIhD9lUF7z+Xg==');
    expect(readIdentifier('%2FAadklP%2FMvIhD9lUF7z%2BXg%3D%3D')).toBe('/AadklP/MvIhD9lUF7z+Xg==');
  });

  it('restores a + that a form-decoded URL turned into a space, also at either end', () => {
    expect(readIdentifier('/AadklP/MvIhD9lUF7z Xg==')).toBe('/AadklP/MvIhD9lUF7z+Xg==');
    expect(readIdentifier('  JD46ulRSKeZUpPMvp7pg==')).toBe('++JD46ulRSKeZUpPMvp7pg==');
    // A stray space is not a +: with it the id would not be padded Base64 (a multiple of 4 long).
    expect(readIdentifier(' /AadklP/MvIhD9lUF7z+Xg== ')).toBe('/AadklP/MvIhD9lUF7z+Xg==');
  });

  it("drops the ' a spreadsheet formula guard put before a leading +", () => {
    expect(readIdentifier("'+NIKJE8BKlHd+ZwQtFUe9A==")).toBe('+NIKJE8BKlHd+ZwQtFUe9A==');
  });

  it('refuses what cannot be an identifier', () => {
    for (const text of ['#REF!', 'abc def!', '%E0%A4%A', 'a==b'])
      expect(readIdentifier(text), text).toBeUndefined();
  });

  it('refuses text no Base64 can be: 4n+1 long, padded to other than 4n, or of two alphabets', () => {
    for (const text of [
      '0',
      '12345',
      '/AadklP/MvIhD9lUF7z+Xg==A',
      'abc==',
      'AAAAAAAAAAAAAAAAAAAAAA=',
      '/Aad-klP',
    ])
      expect(readIdentifier(text), text).toBeUndefined();
  });

  it('takes what Base64 can be, whatever its length, since the spec gives none, padded', () => {
    expect(['AA', 'N/A', 'AAA=', 'AAAA'].map(readIdentifier)).toEqual(['AA==', 'N/A=', 'AAA=', 'AAAA']);
  });

  it('makes YMIDPathEncoded and a YMID without its padding the YMID, which the service takes', () => {
    expect(readIdentifier('_AadklP_MvIhD9lUF7z-Xg')).toBe('/AadklP/MvIhD9lUF7z+Xg==');
    expect(readIdentifier('/AadklP/MvIhD9lUF7z+Xg')).toBe('/AadklP/MvIhD9lUF7z+Xg==');
    expect(readIdentifier('qqqq-w')).toBe('qqqq+w==');
  });
});

describe('identifier-lookup job', () => {
  it('fails a missing or malformed id before any request, naming the column', () => {
    const job = createIdentifierLookupJob(
      { addressSearch: { byIdentifier: async () => answer([]) } },
      { mapping },
    );
    expect(job.plan(row({ ymid: '' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'ymid',
      message: 'ymid: missing; expected a YMID',
    });
    expect(job.plan(row({ ymid: '#REF!' }))).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'ymid',
      message: expect.stringContaining('got `#REF!`'),
    });
  });

  it('says what a malformed id breaks: a character no form has, padding, two alphabets, a length, an escape', () => {
    const job = createIdentifierLookupJob(
      { addressSearch: { byIdentifier: async () => answer([]) } },
      { mapping },
    );
    const expected =
      'ymid: expected a YMID (Base64, such as /AadklP/MvIhD9lUF7z+Xg==) or its YMIDUrlEncoded or YMIDPathEncoded form, got';
    const alphabet =
      'which no YMID has (letters, digits, + and /, or - and _ in the path-safe form, = padding at the end)';
    const cases: [string, string][] = [
      ['#REF!', `\`#REF!\`: it holds \`#\`, \`!\`, ${alphabet}`],
      [
        '12345',
        '`12345`: it is 5 characters long, a length no Base64 text has (4n+1): a character lost or one too many?',
      ],
      [
        '/AadklP/MvIhD9lUF7z+Xg=',
        '`/AadklP/MvIhD9lUF7z+Xg=`: it is 23 characters long with its = padding, and padded Base64 is a multiple of 4 long: a character lost or one too many?',
      ],
      ['AAAA===', '`AAAA===`: it ends in 3 =: Base64 pads with at most two'],
      ['a==b', '`a==b`: it has = inside it: Base64 pads with = at the end only'],
      [
        '/Aad-klP',
        "`/Aad-klP`: it mixes the YMID's + or / with the path-safe form's - or _, and no form has both",
      ],
      [
        '%2FAadklP%E0%A4',
        '`%2FAadklP%E0%A4`: its %-escapes (YMIDUrlEncoded) do not decode: a % not followed by two hex digits, or an escape of a character cut in half',
      ],
      [
        'YMID: /AadklP/MvIhD9lUF7z+Xg==',
        `\`YMID: /AadklP/MvIhD9lUF7z+Xg==\`: it holds \`:\`, ${alphabet}; is \`YMID:\` a label? what follows it would be read as an identifier`,
      ],
      // The YMID itself starts with +: the space after the label and the id's own + both read as +.
      [
        'YMID: +08QInWbzJ6MSyF5eMjOPw==',
        `\`YMID: +08QInWbzJ6MSyF5eMjOPw==\`: it holds \`:\`, ${alphabet}; is \`YMID:\` a label? what follows it would be read as an identifier`,
      ],
      ['ab\u00a0cd', `\`ab\u00a0cd\`: it holds \\u00a0, ${alphabet}`],
      // A line break in the cell is quoted escaped: the message stays one line.
      ['/AadklP/MvIh\nD9lUF7z+Xg==', `\`/AadklP/MvIh\\u000aD9lUF7z+Xg==\`: it holds \\u000a, ${alphabet}`],
    ];
    for (const [cell, message] of cases)
      expect(job.plan(row({ ymid: cell })), cell).toEqual({
        code: 'FIELD_INVALID',
        field: 'ymid',
        message: `${expected} ${message}`,
      });
  });

  it('quotes a long malformed id by its start and its end, with its length', () => {
    const job = createIdentifierLookupJob(
      { addressSearch: { byIdentifier: async () => answer([]) } },
      { mapping },
    );
    const cell = `${'A'.repeat(50)}#${'B'.repeat(49)}`;
    expect(job.plan(row({ ymid: cell }))).toMatchObject({
      code: 'FIELD_INVALID',
      message: expect.stringContaining(
        `got \`${'A'.repeat(44)}…${'B'.repeat(12)}\` (100 characters): it holds \`#\``,
      ),
    });
  });

  it('reports a record the service no longer has as NOT_FOUND, with the service report', async () => {
    const gone = new ServiceError('SERVICE_REPORTED', 'address search reported status 3: Kein Eintrag.', {
      status: 200,
      detail: { StatusCode: '3', PublicReport: 'Kein Eintrag.' },
    });
    const client = {
      addressSearch: {
        byIdentifier: async (id: string) => {
          if (id === 'gone==') throw gone;
          return id === 'empty==' ? answer([]) : answer([item(id, 'Firma')]);
        },
      },
    };
    const job = createIdentifierLookupJob(client, { mapping, fields: ['company', 'lon', 'lat'] });
    const results = await job.execute(['gone==', 'empty==', 'ok=='], signal);
    expect(results.get('gone==')).toEqual({
      ok: false,
      failure: {
        code: 'NOT_FOUND',
        stage: 'response',
        message: 'identifier `gone==` not found: Kein Eintrag.',
        detail: { PublicReport: 'Kein Eintrag.' },
      },
    });
    expect(results.get('empty==')).toMatchObject({ ok: false, failure: { code: 'NOT_FOUND' } });
    const ok = results.get('ok==');
    expect(ok && job.render(row({ ymid: 'ok==' }), [ok])).toEqual({
      ok: true,
      records: [
        {
          columns: { rec_company: 'Firma', rec_lon: 8.4199, rec_lat: 49.0078 },
          geometry: { type: 'Point', coordinates: [8.4199, 49.0078] },
        },
      ],
    });
  });

  it('names a NOT_FOUND identifier as the cell wrote it, and the YMID sent where that differs', async () => {
    const job = createIdentifierLookupJob(
      { addressSearch: { byIdentifier: async () => answer([]) } },
      { mapping },
    );
    const [id] = job.plan(row({ ymid: 'FPHPCG' })) as string[];
    expect(id).toBe('FPHPCG==');
    const results = await job.execute([id as string], signal);
    expect(job.render(row({ ymid: 'FPHPCG' }), [results.get(id as string) as never])).toMatchObject({
      ok: false,
      failure: { code: 'NOT_FOUND', message: 'identifier `FPHPCG` (sent as the YMID `FPHPCG==`) not found' },
    });
    // As written, as sent: said once.
    const same = await job.execute(['ok=='], signal);
    expect(job.render(row({ ymid: 'ok==' }), [same.get('ok==') as never])).toMatchObject({
      failure: { message: 'identifier `ok==` not found' },
    });
  });

  it('lets any other service report fail the row with its own code', async () => {
    const broken = new ServiceError('SERVICE_REPORTED', 'address search reported status 9', {
      status: 200,
      detail: { StatusCode: '9', PublicReport: '' },
    });
    const job = createIdentifierLookupJob(
      {
        addressSearch: {
          byIdentifier: async () => {
            throw broken;
          },
        },
      },
      { mapping },
    );
    await expect(job.execute(['x=='], signal)).rejects.toBe(broken);
  });
});

describe('identifier-lookup against the emulator', () => {
  let r: Rig;
  let records: AddressItem['BasicData'][];

  beforeAll(async () => {
    r = await rig();
    const found = await r.client.addressSearch.byBranchesAndPosition({
      Branches: '1301',
      LocX: 8.4037,
      LocY: 49.0069,
      MaxRadius: 20000,
      Top: 6,
    });
    records = found.AddressItems.map((i) => i.BasicData);
    r.emulator.resetStats();
  });

  afterAll(() => r.stop());

  it('refreshes every row with one request per distinct identifier, in whichever form it is stored', async () => {
    expect(records).toHaveLength(6);
    const ids = records.map((d) => d.Identifiers);
    const lines = [
      ...ids.map((id, i) => `S${i},${i % 2 === 0 ? id.YMID : id.YMIDUrlEncoded}`),
      `S6,${ids[0]?.YMIDUrlEncoded}`, // stored twice, the other way
      `S7,${ids[1]?.YMID}`,
      'S8,AAAAAAAAAAAAAAAAAAAAAA==',
      // No Base64 text has these shapes: they fail here, without a request.
      'S9,12345',
      `S10,${ids[2]?.YMID}A`,
    ];
    const dir = tempDir();
    const summary = await runJob({
      job: createIdentifierLookupJob(r.client, {
        mapping,
        fields: ['company', 'zip', 'ymid', 'provider_key'],
      }),
      jobFingerprint: 'identifier-lookup:test',
      input: { path: write(join(dir, 'in.csv'), `no,ymid\n${lines.join('\n')}\n`), format: 'csv' },
      output: { path: join(dir, 'out.csv'), format: 'csv', formulaGuard: false },
      report: { path: join(dir, 'errors.csv'), format: 'csv' },
      logger: memoryLogger().logger,
      progress: { enabled: false },
    });
    expect(summary.rows).toMatchObject({
      read: 11,
      ok: 8,
      failed: 3,
      failedByCode: { NOT_FOUND: 1, FIELD_INVALID: 2 },
    });
    // 6 records + 1 unknown id: the repeated ones and the malformed ones cost nothing.
    expect(r.emulator.stats().byEndpoint['GET /addresssearch/v2/ByIdentifier']?.total).toBe(7);
    const errors = parse(read(join(dir, 'errors.csv')), { columns: true }) as Record<string, string>[];
    expect(errors.filter((e) => e.geobatch_error === 'FIELD_INVALID')).toEqual([
      expect.objectContaining({
        geobatch_row: '10',
        no: 'S9',
        geobatch_message: expect.stringMatching(
          /^ymid: expected a YMID .*got `12345`: it is 5 characters long, a length no Base64 text has/,
        ),
      }),
      expect.objectContaining({
        geobatch_row: '11',
        no: 'S10',
        geobatch_message: expect.stringMatching(/^ymid: expected a YMID/),
      }),
    ]);
    const out = parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[];
    const expected = [...records, records[0], records[1]].map((d) => ({
      rec_company: d?.Address.CompanyName,
      rec_zip: d?.Address.Zip,
      rec_ymid: d?.Identifiers.YMID,
      rec_provider_key: d?.Identifiers.ProviderForeignKey,
    }));
    expect(
      out.slice(0, 8).map((o) => ({
        rec_company: o.rec_company,
        rec_zip: o.rec_zip,
        rec_ymid: o.rec_ymid,
        rec_provider_key: o.rec_provider_key,
      })),
    ).toEqual(expected);
    expect(out[8]).toMatchObject({
      no: 'S8',
      geobatch_status: 'failed',
      geobatch_error: 'NOT_FOUND',
      rec_company: '',
    });
  });
});
