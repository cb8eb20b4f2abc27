/**
 * The commands `geobatch init` prints and writes into the job file's header, quoted so that they
 * can be pasted into a POSIX shell as they stand: an input named `#1 Kunden: 2024.csv` would
 * otherwise be cut at the space and, after `#`, read as a comment.
 */

/**
 * What a shell reads as one plain word: letters and digits (any script: `Straße.csv`), and the
 * punctuation that means nothing to sh, bash or zsh (the set Python's shlex.quote leaves alone).
 */
const PLAIN = /^[\p{L}\p{N}_@%+=:,./-]+$/u;

/** A word as it must be typed: unchanged when plain, else in single quotes (`'` as `'\''`). */
export function shellWord(word: string): string {
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The header's commands with the job file's name quoted. The header (src/cli/_job-yaml.ts) names
 * the file as it is; its commands are the lines up to the first key (`job:`), and only those are
 * touched, so a column or path further down that contains the name stays as it is.
 */
export function quoteHeaderCommands(text: string, jobName: string): string {
  const quoted = shellWord(jobName);
  if (quoted === jobName) return text;
  const end = text.search(/^job:/m);
  const head = end < 0 ? text : text.slice(0, end);
  const fixed = head
    .split('\n')
    .map((line) => {
      const command = /^# {3}geobatch (validate|run) /.exec(line)?.[0];
      if (command === undefined || !line.startsWith(jobName, command.length)) return line;
      return `${command}${quoted}${line.slice(command.length + jobName.length)}`;
    })
    .join('\n');
  return fixed + text.slice(head.length);
}
