/**
 * An atomic write's temporary file does not outlive the process: a second Ctrl-C exits at once,
 * and left `out.csv.report.html.tmp` beside the output.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../src/output/_atomic.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomically', () => {
  it('writes the file whole and leaves no temporary file', async () => {
    const path = join(dir, 'whole.html');
    await writeFileAtomically(path, 'all of it', 'the report');
    expect(readdirSync(dir).filter((name) => name.startsWith('whole'))).toEqual(['whole.html']);
  });

  it('removes its temporary file when the process exits while it is written', async () => {
    const path = join(dir, 'cut.html');
    const module = resolve('src/output/_atomic.ts');
    // The child exits as a second Ctrl-C does (process.exit), once the temporary file exists.
    const script = `
      import { existsSync } from 'node:fs';
      const { writeFileAtomically } = await import(${JSON.stringify(module)});
      const tmp = ${JSON.stringify(`${path}.tmp`)};
      const seen = setInterval(() => { if (existsSync(tmp)) { console.log('seen'); process.exit(1); } }, 0);
      await writeFileAtomically(${JSON.stringify(path)}, 'x'.repeat(50_000_000), 'the report');
      clearInterval(seen);
      console.log('finished');
    `;
    const run = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ]).catch((error: { code: number; stdout: string }) => error);
    // Exited while writing (had the write won the race, there would be nothing to show).
    expect(run.stdout.trim()).toBe('seen');
    expect(existsSync(`${path}.tmp`)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });
});
