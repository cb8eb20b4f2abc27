import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { clearSecrets, registerSecret } from '../src/secrets.js';

afterEach(() => clearSecrets());

function memory() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it('writes JSON lines with a level label at the chosen level', () => {
    const { lines, stream } = memory();
    const logger = createLogger({ level: 'debug', destination: stream });
    logger.debug({ rows: 3 }, 'hello');
    logger.trace('not shown');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'debug',
      msg: 'hello',
      rows: 3,
      name: 'geobatch',
    });
  });

  it('blanks credential fields by name, registered or not', () => {
    const { lines, stream } = memory();
    const logger = createLogger({ destination: stream });
    logger.info(
      {
        apiKey: 'never-registered-1',
        request: { headers: { authorization: 'Bearer never-registered-2' } },
        credentials: { partnerKey: 'never-registered-3' },
        options: { securityID: 'never-registered-4', token: 'never-registered-5' },
        legacy: { systemPartner: 'never-registered-6' },
      },
      'sending',
    );
    const text = lines.join('');
    for (const n of [1, 2, 3, 4, 5, 6]) expect(text).not.toContain(`never-registered-${n}`);
    expect(text).toContain('[redacted]');
  });

  it('scrubs a registered secret from anywhere in a line: messages, URLs, nested fields, errors', () => {
    const key = 'registered-api-key-42';
    registerSecret(key);
    const { lines, stream } = memory();
    const logger = createLogger({ level: 'trace', destination: stream });
    logger.info(`GET https://x.test/p?apiKey=${key}`);
    logger.warn({ deep: { deeper: { deepest: `k=${key}` } } }, 'nested');
    logger.error({ err: new Error(`failed with ${encodeURIComponent(key)}`) }, 'boom');
    const text = lines.join('');
    expect(text).not.toContain(key);
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('writes to a file path when given one', async () => {
    const { mkdtemp, readFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'geobatch-log-'));
    const file = join(dir, 'sub', 'run.log');
    const logger = createLogger({ destination: file });
    logger.info('to a file');
    logger.flush();
    expect(JSON.parse((await readFile(file, 'utf8')).trim())).toMatchObject({ msg: 'to a file' });
  });
});
