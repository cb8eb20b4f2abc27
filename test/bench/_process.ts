/**
 * Child processes for the bench: every measured program runs in its own process, so it competes
 * with the emulator for the two cores exactly as a user's run would, and its peak RSS is its own.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/cli/main.js');

/**
 * Printed by the child as it exits: getrusage's ru_maxrss is the kernel's own peak, which a
 * once-a-second sample (the summary's memory.peakRssBytes) can miss on a short run.
 */
const MARK = 'GEOBATCH_BENCH_USAGE=';
const REPORT_USAGE = `data:text/javascript,${encodeURIComponent(
  `import { writeSync } from 'node:fs';process.on('exit', () => { try { const u = process.resourceUsage(); writeSync(2, '\\n${MARK}' + JSON.stringify([u.maxRSS * 1024, u.userCPUTime / 1000, u.systemCPUTime / 1000]) + '\\n'); } catch {} });`,
)}`;

export interface Finished {
  readonly code: number | null;
  /** From spawn to exit, in ms: what the user waits for. */
  readonly wallMs: number;
  /** Peak resident set of the child, in bytes (ru_maxrss). */
  readonly maxRssBytes: number | undefined;
  /** CPU time of the child, user plus system, in ms. */
  readonly cpuMs: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

export interface NodeRun {
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
  /** Run the child through tsx (bench scripts written in TypeScript). */
  readonly typescript?: boolean;
  readonly timeoutMs?: number;
}

/** Runs `node <args>` to completion; rejects only when it cannot be started or times out. */
export function runNode(run: NodeRun): Promise<Finished> {
  const loader = run.typescript === true ? ['--import', 'tsx'] : [];
  const args = [...loader, '--import', REPORT_USAGE, ...run.args];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...run.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${run.timeoutMs} ms: node ${run.args.join(' ')}\n${stderr}`));
    }, run.timeoutMs ?? 300_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      const line = new RegExp(`\\n?${MARK}(.+)\\n?`).exec(stderr);
      const usage = line?.[1] === undefined ? undefined : (JSON.parse(line[1]) as [number, number, number]);
      resolve({
        code,
        wallMs,
        maxRssBytes: usage?.[0],
        cpuMs: usage === undefined ? undefined : usage[1] + usage[2],
        stdout,
        stderr: line === null ? stderr : stderr.replace(line[0], ''),
      });
    });
  });
}

/** Fails loudly with the child's own words when it did not exit as expected. */
export function expectExit(run: Finished, allowed: readonly number[], what: string): void {
  if (run.code !== null && allowed.includes(run.code)) return;
  throw new Error(`${what} exited with ${run.code}\n${run.stderr.slice(-4000)}`);
}
