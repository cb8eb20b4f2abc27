import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { openFileSink, partialPath, streamSink } from '../../src/output/_sink.js';
import { tempDir } from './_outcomes.js';

/** A stream that takes one small chunk at a time, slowly, and records how much ever waited in it. */
function slowStream() {
  let maxBuffered = 0;
  let received = 0;
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      setTimeout(callback, 1);
    },
  });
  const watch = () => {
    maxBuffered = Math.max(maxBuffered, stream.writableLength);
  };
  return { stream, watch, stats: () => ({ maxBuffered, received }) };
}

describe('sink', () => {
  it('writes to a temporary file and renames it over the target only on commit', async () => {
    const target = join(tempDir(), 'out.csv');
    const sink = await openFileSink(target);
    sink.write('a,b\n');
    expect(await sink.sync()).toBe(4);
    expect(existsSync(target)).toBe(false);
    expect(readFileSync(partialPath(target), 'utf8')).toBe('a,b\n');
    await sink.commit();
    expect(readFileSync(target, 'utf8')).toBe('a,b\n');
    expect(existsSync(partialPath(target))).toBe(false);
  });

  it('honours backpressure: a caller that awaits drain never piles data up in a slow stream', async () => {
    const slow = slowStream();
    const sink = streamSink(slow.stream, 'slow');
    const line = `${'x'.repeat(999)}\n`;
    for (let i = 0; i < 300; i++) {
      slow.watch();
      if (!sink.write(line)) await sink.drain();
    }
    await sink.sync();
    expect(slow.stats().received).toBe(300_000);
    // One gathered write (64 KiB) plus what the stream took before saying "full".
    expect(slow.stats().maxBuffered).toBeLessThanOrEqual(2 * 65_536);
  });

  it('hands a stream what it gathered after a short wait, without a sync, in one write for lines that come fast', async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    });
    const sink = streamSink(stream, 'collect');
    for (let i = 0; i < 1000; i++) sink.write(`line ${i}\n`);
    expect(chunks).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.split('\n')).toHaveLength(1001);
    sink.write('one more\n');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(chunks).toEqual([expect.any(String), 'one more\n']);
    expect(await sink.sync()).toBe(chunks.join('').length);
  });

  it('writes multi-byte text across its 64 KiB gathering, and texts larger than it, byte for byte', async () => {
    const target = join(tempDir(), 'out.csv');
    const sink = await openFileSink(target);
    // Lines of 2-, 3- and 4-byte characters that end the buffer at every offset, then one large text.
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `${i},Grüße ${'€'.repeat(i % 7)} 𝄞${'x'.repeat(i % 13)}\n`,
    );
    const large = `${'ä'.repeat(40_000)}\n`;
    const texts = [...lines.slice(0, 1500), large, ...lines.slice(1500), large];
    for (const text of texts) sink.write(text);
    const expected = texts.join('');
    expect(await sink.sync()).toBe(Buffer.byteLength(expected, 'utf8'));
    await sink.commit();
    expect(readFileSync(target, 'utf8')).toBe(expected);
  });

  it('never cuts a text at the end of its gathering: one that fits by characters but not by bytes goes whole', async () => {
    for (const room of [1, 2, 7, 100]) {
      const chunks: Buffer[] = [];
      const stream = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk);
          callback();
        },
      });
      const sink = streamSink(stream, 'collect');
      const filler = 'x'.repeat(64 * 1024 - room);
      const euros = '€'.repeat(room); // as many characters as there is room, three times the bytes
      sink.write(filler);
      sink.write(euros);
      await sink.sync();
      expect(Buffer.concat(chunks).toString('utf8'), `room ${room}`).toBe(filler + euros);
    }
  });

  it('cuts a resumed file back to the checkpoint, dropping what a killed run wrote after it', async () => {
    const target = join(tempDir(), 'out.ndjson');
    writeFileSync(partialPath(target), '{"a":1}\n{"a":2}\ngarbage-after-kill');
    const sink = await openFileSink(target, 16);
    sink.write('{"a":3}\n');
    await sink.commit();
    expect(readFileSync(target, 'utf8')).toBe('{"a":1}\n{"a":2}\n{"a":3}\n');
  });

  it('refuses to resume a temporary file shorter than the checkpoint says', async () => {
    const target = join(tempDir(), 'out.csv');
    writeFileSync(partialPath(target), 'abc');
    const error = await openFileSink(target, 10).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      expected: 'at least 10 bytes',
      received: '3 bytes',
    });
    expect(isGeobatchError(error) && error.message).toBe(
      `${partialPath(target)} is shorter than the checkpoint says (3 bytes, not 10)`,
    );
  });

  it('says a temporary file the checkpoint holds is gone, not that it is shorter', async () => {
    const target = join(tempDir(), 'out.csv');
    const error = await openFileSink(target, 10).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('CHECKPOINT_MISMATCH');
    expect(isGeobatchError(error) && error.message).toBe(
      `${partialPath(target)} is gone, though the checkpoint holds 10 bytes of it`,
    );
    expect(isGeobatchError(error) && error.context).toMatchObject({ received: 'no file' });
  });

  it('turns a write failure into IO_ERROR naming the file', async () => {
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
      },
    });
    const sink = streamSink(broken, 'disk.csv');
    sink.write('x');
    const error = await sink
      .sync()
      .then(() => sink.sync())
      .catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
    expect(isGeobatchError(error) && error.context.file).toBe('disk.csv');
  });

  it('fails to open a file in a missing directory with IO_ERROR', async () => {
    const error = await openFileSink(join(tempDir(), 'missing', 'out.csv')).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
  });

  it('writes `-` to stdout and stops quietly when the reader goes away (EPIPE)', () => {
    const script = [
      "import { streamSink } from './src/output/_sink.ts';",
      'const sink = streamSink(process.stdout);',
      "for (let i = 0; i < 200000 && !sink.broken; i++) { if (!sink.write('line ' + i + '\\n')) await sink.drain(); }",
      'await sink.sync();',
      "process.stderr.write('broken=' + sink.broken + '\\n');",
    ].join('\n');
    const result = spawnSync('sh', ['-c', `node --import tsx --input-type=module -e "$SCRIPT" | head -n 2`], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, SCRIPT: script },
      encoding: 'utf8',
    });
    expect(result.stdout).toBe('line 0\nline 1\n');
    expect(result.stderr).toContain('broken=true');
    expect(result.stderr).not.toMatch(/Error|EPIPE/);
  });

  it('closes and discards after a disk-full write (Linux /dev/full) instead of waiting forever', async () => {
    const target = join(tempDir(), 'out.csv');
    symlinkSync('/dev/full', partialPath(target));
    const sink = await openFileSink(target);
    for (let i = 0; i < 100 && !sink.write('x'.repeat(4096)); i++) await sink.drain().catch(() => {});
    const error = await sink.sync().catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
    expect(isGeobatchError(error) && error.message).toContain(
      `Writing ${partialPath(target)} failed: ENOSPC`,
    );
    expect(isGeobatchError(error) && error.context.file).toBe(partialPath(target));
    await sink.close();
    await sink.close();
    await sink.discard();
    expect(existsSync(partialPath(target))).toBe(false);
  });

  it('closes a file twice, and after a commit, without waiting forever', async () => {
    const target = join(tempDir(), 'out.csv');
    const sink = await openFileSink(target);
    sink.write('a\n');
    await sink.commit();
    await sink.close();
    await sink.close();
    expect(readFileSync(target, 'utf8')).toBe('a\n');
  });
});
