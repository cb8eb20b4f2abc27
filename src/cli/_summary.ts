/** The few lines a person reads when a run ends (the full account is the summary JSON). */
import { relative } from 'node:path';
import { summaryPath } from '../output/summary.js';
import type { RunSummary } from '../run.js';
import { scrub } from '../secrets.js';

/** HTTP requests the client sent, retries included; the engine's count when there is no client. */
export function httpRequests(summary: RunSummary): number {
  const requests = (summary.client as { requests?: { total?: number } } | null)?.requests?.total;
  return typeof requests === 'number' ? requests : summary.requests.sent;
}

function where(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown.startsWith('..') ? path : shown;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The cache's part of the closing line; empty without a cache. */
function cacheWords(summary: RunSummary): string {
  const cache = summary.cache;
  if (cache === null) return '';
  const items = cache.hits === 1 ? 'item' : 'items';
  const verb = summary.dryRun ? 'the cache would answer' : 'from the cache';
  return `; ${cache.hits} ${items} ${verb} (${cache.requestsSaved} requests saved)`;
}

export function describeSummary(summary: RunSummary): string {
  const { rows, requests } = summary;
  const saved = requests.savedByDedup + requests.savedByBatching + requests.savedByLocalAnswers;
  const cache = cacheWords(summary);
  if (summary.dryRun) {
    const estimate = summary.estimate;
    const time =
      estimate?.seconds === null || estimate === null
        ? 'no rate set, so no time estimate (--rate)'
        : `about ${estimate.seconds} s at ${estimate.requestsPerSecond} requests/s`;
    return [
      `${summary.job} (dry run): ${rows.read} rows, ${rows.failed} would fail before any request`,
      `  ${requests.sent} requests after dedup and batching (${saved} saved)${cache}; ${time}`,
    ].join('\n');
  }
  const lines = [
    summary.ended === 'stopped'
      ? `${summary.job}: STOPPED after ${rows.written} rows (${rows.ok} ok, ${rows.failed} failed), ${seconds(summary.timing.durationMs)}${cache}`
      : `${summary.job}: done in ${seconds(summary.timing.durationMs)}: ${rows.read} rows, ${rows.ok} ok, ${rows.failed} failed; ${httpRequests(summary)} requests (${saved} saved by dedup, batching and local answers)${cache}`,
  ];
  if (summary.error !== null) {
    lines.push(`  ${summary.error.code}: ${scrub(summary.error.message)}`);
    if (summary.error.hint) lines.push(`  hint: ${summary.error.hint}`);
  }
  if (summary.cache?.problem) lines.push(`  cache: ${scrub(summary.cache.problem)}`);
  if (summary.resume.checkpoint !== null) {
    lines.push(`  checkpoint kept: ${where(summary.resume.checkpoint)}; rerun with --resume to continue`);
  }
  if (summary.output !== null && summary.ended !== 'stopped')
    lines.push(`  output   ${where(summary.output.path)}`);
  if (summary.report !== null && rows.failed > 0) {
    lines.push(`  errors   ${where(summary.report.path)} (${summary.report.rows} rows)`);
  }
  if (summary.output !== null && summary.output.path !== '-') {
    lines.push(`  summary  ${where(summaryPath(summary.output.path))}`);
  }
  return lines.join('\n');
}
