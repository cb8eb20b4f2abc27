/** The closing lines of a run as `geobatch run` prints them on standard error. */
import type { RunSummary } from '../run/run.js';
import type { Display } from './_display.js';
import { describeSummary } from './_summary.js';

/** The closing lines, named by the job file as given, the first in the colour of how the run ended. */
export function painted(display: Display, summary: RunSummary, jobFile?: string): string {
  const [headline = '', ...rest] = describeSummary(withoutRepeatedHint(summary), jobFile).split('\n');
  const sgr = summary.exitCode === 0 ? '32' : summary.exitCode === 3 || summary.exitCode === 4 ? '33' : '31';
  return [display.paint(headline, sgr), ...rest].join('\n');
}

/**
 * A fatal service error says what to do in its message (`...: check GEOBATCH_API_KEY`), so that
 * the error report, the logs and the summary file, which show the message alone, say it too; its
 * hint is the same words, and printed under the message they would only repeat it.
 */
export function withoutRepeatedHint(summary: RunSummary): RunSummary {
  const error = summary.error;
  if (error?.hint === undefined) return summary;
  if (endsWithText(error.message, error.hint)) {
    const { hint: _repeated, ...rest } = error;
    return { ...summary, error: rest };
  }
  // A hint that goes on from the message's advice ("wait until the quota resets or raise it, then
  // run again with --resume"): only what it adds is printed under the message.
  const advice = error.message.slice(error.message.lastIndexOf(': ') + 2);
  const added = startsWithText(error.hint, advice)
    ? error.hint.slice(advice.length).replace(/^[\s,;]+/, '')
    : undefined;
  return added === undefined || added === '' ? summary : { ...summary, error: { ...error, hint: added } };
}

/** Whether `text` starts with `start` (at least a few words of it), letter case aside. */
function startsWithText(text: string, start: string): boolean {
  return start.length >= 12 && text.toLowerCase().startsWith(start.toLowerCase());
}

/** Whether `message` ends with `hint`, letter case and a closing full stop aside. */
function endsWithText(message: string, hint: string): boolean {
  const plain = (text: string) => text.trim().replace(/\.$/, '').toLowerCase();
  return plain(hint) !== '' && plain(message).endsWith(plain(hint));
}
