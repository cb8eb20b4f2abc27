import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cli, waitFor } from './_cli.js';

/** The command line and environment the running process ended up with (after its re-exec). */
async function startedWith(env: NodeJS.ProcessEnv) {
  const run = cli(['emulator', '--port', '0'], env);
  try {
    await waitFor(run.out, /listening on http/);
    const pid = run.child.pid as number;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return {
      argv,
      arenas: environ.find((e) => e.startsWith('MALLOC_ARENA_MAX=')),
      mmapThreshold: environ.find((e) => e.startsWith('MALLOC_MMAP_THRESHOLD_=')),
    };
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
}

describe.runIf(process.platform === 'linux')('the entry point (src/cli/main.ts)', () => {
  it('restarts itself once on 8 MB semi-spaces, an old space growing by half, gc exposed, 2 malloc arenas and a fixed mmap threshold', async () => {
    const { argv, arenas, mmapThreshold } = await startedWith({
      MALLOC_ARENA_MAX: undefined,
      MALLOC_MMAP_THRESHOLD_: undefined,
      GLIBC_TUNABLES: undefined,
      GEOBATCH_HEAP: undefined,
    });
    expect(argv.filter((a) => /^--(max-semi-space-size|heap-growing-percent|expose-gc)/.test(a))).toEqual([
      '--max-semi-space-size=8',
      '--heap-growing-percent=50',
      '--expose-gc',
    ]);
    expect(arenas).toBe('MALLOC_ARENA_MAX=2');
    expect(mmapThreshold).toBe('MALLOC_MMAP_THRESHOLD_=131072');
    // The name the standard heap had while it was a choice still starts it.
    expect((await startedWith({ GEOBATCH_HEAP: 'small' })).argv).toEqual(argv);
  });

  it('starts on 16 MB semi-spaces and a doubling old space with GEOBATCH_HEAP=large', async () => {
    const { argv } = await startedWith({ GEOBATCH_HEAP: 'large' });
    expect(argv.filter((a) => /^--(max-semi-space-size|heap-growing-percent|expose-gc)/.test(a))).toEqual([
      '--max-semi-space-size=16',
      '--heap-growing-percent=100',
      '--expose-gc',
    ]);
  });

  it('prints no Node warning about NO_COLOR when FORCE_COLOR is set too: NO_COLOR wins, as geobatch says', async () => {
    // The built entry point, as users start it: the tests' TypeScript loader checks colours itself.
    const run = await promisify(execFile)(
      process.execPath,
      ['dist/cli/main.js', 'validate', 'jobs/geocode.yaml'],
      {
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '1' },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('valid geocode job');
    expect(run.stdout).not.toContain('\x1b[');
  });

  it('refuses a GEOBATCH_HEAP it does not know, naming the choices, before anything runs', async () => {
    for (const value of ['tiny', 'constructor']) {
      const run = cli(['--version'], { GEOBATCH_HEAP: value });
      expect(await run.exited).toBe(2);
      expect(run.err()).toContain(`GEOBATCH_HEAP is "${value}"; expected large`);
      expect(run.out()).toBe('');
    }
  });

  it("keeps the user's malloc setting, and starts as is with GEOBATCH_HEAP=default", async () => {
    expect((await startedWith({ MALLOC_ARENA_MAX: '4' })).arenas).toBe('MALLOC_ARENA_MAX=4');
    expect((await startedWith({ MALLOC_MMAP_THRESHOLD_: '65536' })).mmapThreshold).toBe(
      'MALLOC_MMAP_THRESHOLD_=65536',
    );
    // glibc's own way to set it: ours would override the user's there.
    const tuned = await startedWith({
      MALLOC_MMAP_THRESHOLD_: undefined,
      GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=262144',
    });
    expect(tuned.mmapThreshold).toBeUndefined();
    const plain = await startedWith({
      GEOBATCH_HEAP: 'default',
      MALLOC_ARENA_MAX: undefined,
      MALLOC_MMAP_THRESHOLD_: undefined,
    });
    expect(plain.argv.some((a) => /^--(max-semi-space-size|heap-growing-percent|expose-gc)/.test(a))).toBe(
      false,
    );
    expect(plain.arenas).toBeUndefined();
    expect(plain.mmapThreshold).toBeUndefined();
  });
});
