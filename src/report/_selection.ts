/**
 * A run of rows `--limit` or `--sample` selected answered only those: its closing line and its
 * report say so, where "done: 3 rows" and a green "every row is accounted for" read as the whole
 * input done.
 */
import type { RunSummary } from '../output/summary.js';

/**
 * The flags that selected the rows (`--limit 3`, `--sample 50 --seed 7`), or undefined when the
 * run read every row: none given, or the input held fewer rows than they would take.
 */
export function selectedBy(summary: Pick<RunSummary, 'input' | 'rows'>): string | undefined {
  const selection = summary.input.selection;
  if (selection === undefined) return undefined;
  const { limit, sample, seed } = selection;
  const read = summary.rows.read;
  // Fewer rows than the sample draws: all were taken; fewer than the limit: the input ended first.
  const drawn = sample !== null && read >= sample;
  const cut = limit !== null && read >= limit;
  if (!drawn && !cut) return undefined;
  const flags: string[] = [];
  if (limit !== null) flags.push(`--limit ${limit}`);
  if (sample !== null) flags.push(`--sample ${sample} --seed ${seed ?? '0'}`);
  return flags.join(' ');
}
