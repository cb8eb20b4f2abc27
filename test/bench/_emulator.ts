/**
 * The emulator in its own process (`geobatch emulator --port 0`), steered between scenarios
 * through its loopback control endpoints, so it never shares an event loop with what is measured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { FaultConfig, RequestLogEntry } from '../../src/emulator/index.js';
import { CLI, ROOT } from './_process.js';

export interface BenchEmulator {
  readonly origin: string;
  /** The environment that points a `geobatch run` at this emulator. */
  readonly env: Record<string, string>;
  /** Replaces the whole fault configuration (latency, rate limit...). */
  setFaults(faults: FaultConfig): Promise<void>;
  /** Clears the counters and the request log. */
  resetStats(): Promise<void>;
  requestLog(): Promise<RequestLogEntry[]>;
  close(): Promise<void>;
}

async function control(origin: string, path: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(`${origin}/_emulator${path}`, init);
  const body = await res.json();
  if (!res.ok) throw new Error(`emulator control ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function originOf(child: ChildProcess): Promise<string> {
  let text = '';
  child.stdout?.setEncoding('utf8');
  for await (const chunk of child.stdout ?? []) {
    text += chunk as string;
    const match = /listening on (http:\/\/[^\s]+)/.exec(text);
    if (match?.[1] !== undefined) return match[1];
  }
  throw new Error(`the emulator exited before it listened:\n${text}`);
}

export async function startBenchEmulator(): Promise<BenchEmulator> {
  const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await originOf(child);
  // Keep draining stdout so that the child never blocks on a full pipe.
  child.stdout?.resume();
  return {
    origin,
    env: {
      GEOBATCH_EMULATOR_URL: origin,
      GEOBATCH_API_KEY: 'demo-api-key',
      GEOBATCH_PARTNER: 'demo-partner',
      GEOBATCH_PARTNER_KEY: 'demo-partner-key',
    },
    async setFaults(faults) {
      await control(origin, '/faults', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(faults),
      });
    },
    async resetStats() {
      await control(origin, '/stats/reset', { method: 'POST' });
    },
    async requestLog() {
      return (await control(origin, '/log')) as RequestLogEntry[];
    },
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
