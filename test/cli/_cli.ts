/** Spawning the real command line (from source, through tsx) and waiting on what it prints. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  out(): string;
  err(): string;
}

/** tsx's loader by path, so that the command runs from any working directory. */
const TSX = createRequire(join(ROOT, 'package.json')).resolve('tsx');

export interface CliOptions {
  /** @default the repository */
  readonly cwd?: string;
  /** Run under `ulimit -f` (in the shell's blocks of 512 or 1024 bytes): writes beyond fail with EFBIG. */
  readonly fileSizeBlocks?: number;
  /** A file descriptor the child reads as standard input (as `< file` gives it); a pipe when absent. */
  readonly stdin?: number;
}

/**
 * Each spawned run gets a cache directory of its own unless the test names one, so that no test
 * writes to the user's ~/.cache and no run is answered from an earlier test's cache.
 */
function freshCache(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.XDG_CACHE_HOME !== undefined || env.GEOBATCH_CACHE !== undefined) return {};
  return { XDG_CACHE_HOME: mkdtempSync(join(cacheRoot(), 'xdg-')), GEOBATCH_CACHE: '' };
}

let root: string | undefined;

/** One directory for the test file's caches, removed after its tests. */
function cacheRoot(): string {
  root ??= mkdtempSync(join(tmpdir(), 'geobatch-xdg-'));
  return root;
}

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

export function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}, options: CliOptions = {}): CliRun {
  const command = [process.execPath, '--import', TSX, join(ROOT, 'src/cli/main.ts'), ...args];
  const [file, ...rest] =
    options.fileSizeBlocks === undefined
      ? command
      : ['sh', '-c', `ulimit -f ${options.fileSizeBlocks} && exec "$@"`, 'sh', ...command];
  const child = spawn(file as string, rest, {
    cwd: options.cwd ?? ROOT,
    stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...freshCache(env), ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

export async function waitFor(
  read: () => string,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<RegExpMatchArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = read().match(pattern);
    if (m) return m;
    if (Date.now() > until) throw new Error(`no ${pattern} in output:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls until `check` holds. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The rows a run's checkpoint says are committed: 0 when there is none yet (or it is caught between write and rename). */
export function committedRows(checkpoint: string): number {
  try {
    return (JSON.parse(readFileSync(checkpoint, 'utf8')) as { committedRows: number }).committedRows;
  } catch {
    return 0;
  }
}

/** The environment that points a child run at an emulator started by the test. */
export function emulatorEnv(emulator: EmulatorHandle): NodeJS.ProcessEnv {
  return {
    GEOBATCH_EMULATOR_URL: emulator.urls.origin,
    GEOBATCH_API_KEY: emulator.credentials.apiKey,
    GEOBATCH_PARTNER: emulator.credentials.partner,
    GEOBATCH_PARTNER_KEY: emulator.credentials.partnerKey,
  };
}
