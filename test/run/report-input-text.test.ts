/**
 * The error report writes the input's own text as it was read, a malformed record's raw line as
 * its fields, though a credential's value (a partner name) is in it: it is the user's data, and the
 * line they fix and feed back. What geobatch composes of a service's answer stays scrubbed, a key
 * the service echoes included.
 */

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJobFile } from '../../src/index.js';
import { clearSecrets } from '../../src/secrets.js';
import { memoryLogger, tempDir } from '../fixtures/run-helpers.js';

const KEY = 'echoed-api-key-5e1f';
const PARTNER = 'demo-partner';
const MALFORMED = `3,"${PARTNER} ""x"x,1,2`;

let dir: string;
let server: Server;
let url: string;

beforeAll(async () => {
  dir = tempDir();
  // A service that rejects every request, quoting the request's address (its apiKey) back.
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ errCode: 'INVALID', publicReport: `bad request ${req.url}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/el`;
  writeFileSync(join(dir, 'in.csv'), `id,name,lon,lat\n1,${PARTNER} GmbH,13.4,52.5\n${MALFORMED}\n`);
  writeFileSync(
    join(dir, 'job.yaml'),
    'job: elevation\ninput: in.csv\noutput: out.csv\nservice:\n  retry: { maxAttempts: 1 }\n',
  );
});

afterAll(async () => {
  clearSecrets();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("the error report's raw line", () => {
  it('is the input line as read, a partner name in it kept; the echoed key stays scrubbed', async () => {
    const env = { GEOBATCH_ELEVATION_URL: url, GEOBATCH_API_KEY: KEY, GEOBATCH_PARTNER: PARTNER };
    for (const errors of ['out.errors.csv', 'out.errors.ndjson']) {
      const { logger, lines } = memoryLogger();
      const summary = await runJobFile(join(dir, 'job.yaml'), { env, errors: join(dir, errors), logger });
      expect(summary.ended).toBe('complete_with_failures');
      expect(summary.report).toMatchObject({ rows: 2, written: true });
      const text = readFileSync(join(dir, errors), 'utf8');
      expect(text).not.toContain(KEY);
      expect(JSON.stringify(lines())).not.toContain(KEY);
      // Each record as [code, message, raw, fields], from either format.
      const records = errors.endsWith('.csv')
        ? (parse(text, { columns: true }) as Record<string, string>[]).map((r) => [
            r.geobatch_error,
            r.geobatch_message,
            r.geobatch_raw || null,
            JSON.stringify({ id: r.id, name: r.name, lon: r.lon, lat: r.lat }),
          ])
        : text
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as Record<string, unknown>)
            .map((r) => [r.code, r.message, r.raw, JSON.stringify(r.fields)]);
      expect(records).toEqual([
        [
          'ITEM_REJECTED',
          'the service rejected this point: elevation answered 400: bad request /el/api/v2/Elevation/point?channel=geobatch&apiKey=[redacted]',
          null,
          JSON.stringify({ id: '1', name: `${PARTNER} GmbH`, lon: '13.4', lat: '52.5' }),
        ],
        [
          'INPUT_MALFORMED',
          'Malformed CSV record: a closing quote not followed by a delimiter or line end',
          MALFORMED,
          JSON.stringify({ id: '3', name: `"${PARTNER} ""x"x`, lon: '1', lat: '2' }),
        ],
      ]);
    }
  });
});
