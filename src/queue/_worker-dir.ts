/**
 * A worker's directory for the files of the runs it works on (a matrix's destinations, say: jobs
 * read them by path). It is removed when the worker ends; a worker killed with -9 (or out of
 * memory, or its machine's power) leaves it behind, and every such death added one to the
 * machine's temporary directory. Its name carries the worker's pid, so that the next worker to
 * start removes those of workers that are gone.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processRunning, startedAfter } from '../process-alive.js';

const PREFIX = 'geobatch-worker-';
/** `geobatch-worker-<pid>-` and mkdtemp's six characters. */
const NAME = /^geobatch-worker-(\d+)-[A-Za-z0-9]{6}$/;

/** Makes this worker's directory, after removing those of dead workers; says how many it removed. */
export async function workerDir(): Promise<{ path: string; removed: number }> {
  const removed = await removeStale(tmpdir());
  return { path: await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`)), removed };
}

/**
 * Removes the directories of workers whose process is gone: none runs under the pid, or the one
 * that does started after the directory was made (the pid was taken since). A directory that
 * cannot be removed (another user's) is left, as is one named otherwise.
 */
async function removeStale(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const pid = Number(NAME.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory() !== true) continue;
    const made = Math.min(info.birthtimeMs || Number.POSITIVE_INFINITY, info.mtimeMs, info.ctimeMs);
    if (processRunning(pid) && !startedAfter(pid, made)) continue;
    const gone = await rm(path, { recursive: true }).then(
      () => true,
      () => false,
    );
    if (gone) removed++;
  }
  return removed;
}
