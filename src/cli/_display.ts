/**
 * What a person sees on standard error during a command: log lines, the progress bar and the
 * closing summary, arranged so that none overwrites another.
 *
 * On a terminal: log lines are pretty (`12:00:01 WARN  message`), coloured unless NO_COLOR says
 * otherwise, and printed above the progress bar through one status line. Elsewhere (a pipe, a
 * file, cron): JSON lines, and progress as JSON records. `--log-format` overrides the choice of
 * format; `--log-file` sends the log to a file (JSON unless told otherwise), the bar stays.
 */
import { type Command, Option } from 'commander';
import type { Level } from 'pino';
import type { IoError } from '../errors.js';
import { colourWanted, createLogger, type Logger } from '../log.js';
import { createStatusLine, type StatusLine } from '../run/status-line.js';
import { logFileStream, openLogFile } from './_log-file.js';

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface DisplayOptions {
  readonly logLevel: Level | 'silent';
  readonly logFile?: string;
  /**
   * Called once, when a write of the log file fails (disk full, I/O error): the log is off from
   * then on, and the command should stop (see _log-file.ts). @default the error is written to
   * standard error, so that it is at least not lost
   */
  readonly onLogFailure?: (error: IoError) => void;
  /** @default 'auto': pretty on a terminal, JSON elsewhere and in a log file */
  readonly logFormat?: LogFormat;
  /** @default process.stderr */
  readonly stream?: NodeJS.WriteStream;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

export interface Display {
  readonly logger: Logger;
  /** The terminal's status line, for the progress bar; undefined off a terminal. */
  readonly statusLine: StatusLine | undefined;
  /** Text for a person on standard error, above the bar. */
  write(text: string): void;
  /** `text` in an SGR colour when colour is wanted (see colourWanted in log.ts). */
  paint(text: string, sgr: string): string;
  /** Clears the bar and shows the cursor. */
  close(): void;
}

export function openDisplay(options: DisplayOptions): Display {
  // First: a log file that cannot be written is refused before the terminal is touched.
  const logFile =
    options.logFile === undefined
      ? undefined
      : logFileStream(options.logFile, openLogFile(options.logFile), (error) => onLogFailure(error));
  const stream = options.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  // A dumb terminal (an editor's shell buffer) shows cursor controls as text: no status line
  // there, and progress comes as pretty lines of its own, at any log level (run/progress.ts); the
  // log's lines stay pretty, for a person.
  const dumb = (options.env ?? process.env).TERM === 'dumb';
  const statusLine = tty && !dumb ? createStatusLine(stream) : undefined;
  const format = options.logFormat ?? 'auto';
  const pretty = format === 'pretty' || (format === 'auto' && tty && options.logFile === undefined);
  const colour = colourWanted(options.env ?? process.env, tty);
  const write = (text: string) => (statusLine === undefined ? stream.write(text) : statusLine.print(text));
  const onLogFailure =
    options.onLogFailure ??
    ((error: IoError) => write(`geobatch: ${error.message}\nhint: ${error.context.hint ?? ''}\n`));
  const logger = createLogger({
    level: options.logLevel,
    // Off a terminal, fd 2 as before: synchronous, so a fatal error's last line is not lost.
    destination: logFile ?? (statusLine === undefined && options.stream === undefined ? 2 : { write }),
    ...(pretty
      ? {
          pretty: {
            colour: colour && options.logFile === undefined,
            // On standard error the summary printed at the end says what the end record says.
            omitEvents: options.logFile === undefined ? ['run.end'] : [],
          },
        }
      : {}),
  });
  return {
    logger,
    statusLine,
    write,
    paint: (text, sgr) => (colour ? `\x1b[${sgr}m${text}\x1b[0m` : text),
    close: () => statusLine?.dispose(),
  };
}

/** `--log-level`, `--log-file` and `--log-format`, the same on every command that logs. */
export function withLogOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
        .default('info'),
    )
    .option(
      '--log-file <path>',
      'write logs to this file instead of standard error, as JSON lines (pretty with --log-format pretty); appends',
    )
    .addOption(
      new Option('--log-format <format>', 'pretty lines or JSON lines (auto: pretty on a terminal)')
        .choices(['auto', 'json', 'pretty'])
        .default('auto'),
    );
}
