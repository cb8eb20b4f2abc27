/** The machine the figures come from: they mean nothing without it. */
import { readFile } from 'node:fs/promises';
import os from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly date: string;
  readonly loadAverageAtStart: readonly number[];
  readonly command: string;
}

async function cpuModel(): Promise<string> {
  try {
    const info = await readFile('/proc/cpuinfo', 'utf8');
    const model = /^model name\s*:\s*(.+)$/m.exec(info)?.[1];
    if (model !== undefined) return model.trim();
  } catch {
    // Not Linux: fall back to what Node reports.
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export async function machine(): Promise<Machine> {
  return {
    cpu: await cpuModel(),
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    date: new Date().toISOString(),
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
    command: `npm run bench${process.argv.slice(2).length > 0 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  };
}
