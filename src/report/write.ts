/** Writing the run report beside the output, atomically, as the summary is written. */
import { open, rename, unlink } from 'node:fs/promises';
import { IoError } from '../errors.js';
import type { RunReportData } from './data.js';
import { renderRunReport } from './render.js';

/** The report file for an output target. */
export function runReportPath(outputTarget: string): string {
  return `${outputTarget}.report.html`;
}

/** Renders and writes the page: a temporary file, fsync, rename; an old report stays whole until then. */
export async function writeRunReport(path: string, data: RunReportData): Promise<void> {
  const html = renderRunReport(data);
  const temporary = `${path}.tmp`;
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(html);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (cause) {
    // A half-written temporary file on a full disk only takes space another file needs.
    await unlink(temporary).catch(() => {});
    throw new IoError('IO_ERROR', `Cannot write the run report ${path}: ${(cause as Error).message}`, {
      file: path,
      hint: 'Check free disk space and permissions; the output itself is complete.',
      cause,
    });
  }
}
