/** Writing the run report beside the output, atomically, as the summary is written. */
import { writeFileAtomically } from '../output/_atomic.js';
import { scrub } from '../secrets.js';
import type { RunReportData } from './data.js';
import { renderRunReport } from './render.js';

/** The report file for an output target. */
export function runReportPath(outputTarget: string): string {
  return `${outputTarget}.report.html`;
}

/** Renders and writes the page: a temporary file, fsync, rename; an old report stays whole until then. */
export async function writeRunReport(path: string, data: RunReportData): Promise<void> {
  await writeFileAtomically(
    path,
    // Scrubbed whole, like the summary: a key can reach a path or a value shown on the page.
    scrub(renderRunReport(data)),
    'the run report',
    // Said only of a run that finished: a stopped run (a full disk, often the same one) has no
    // complete output; its closing message says why (its summary may have failed too).
    data.summary.ended === 'stopped'
      ? 'Check free disk space and permissions; the run had stopped before it, so its output is not complete.'
      : 'Check free disk space and permissions; the output itself is complete.',
  );
}
