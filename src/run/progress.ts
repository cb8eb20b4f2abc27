/**
 * Progress on standard error. On a terminal: a bar on the status line, redrawn a few times a
 * second, with log lines printed above it (see status-line.ts); on a dumb terminal, which cannot
 * draw one, a pretty line at an interval instead. Both show at any log level: progress for a
 * person is not a log line. Anywhere else (a pipe, a file, a cron mail): a JSON progress record
 * through the logger at an interval, at info, since carriage returns make no sense there. The row
 * total is estimated (see _progress-estimate.ts); the time left is the rows left at the recent
 * pace.
 */
import type { Logger } from 'pino';
import type { ReadPosition } from '../input/reader.js';
import { colourWanted, createLogger, durationText } from '../log.js';
import { estimateTotal, Pace } from './_progress-estimate.js';
import { createStatusLine, type StatusLine } from './status-line.js';

export interface ProgressSnapshot {
  /** Rows written so far (earlier sessions included). */
  readonly rowsDone: number;
  /** Rows read so far (earlier sessions included); ahead of rowsDone by the rows in flight. */
  readonly rowsRead: number;
  readonly rowsFailed: number;
  readonly requests: number;
  /** Bytes taken from the input: ahead of the rows handed on (see InputReader.bytesRead). */
  readonly bytesRead: number;
  readonly bytesTotal: number | undefined;
  /** The most rows the run can have (`--limit`, `--sample`); caps the estimated total. */
  readonly rowsCap?: number;
  /** How far the reader's rows reach into the input (InputReader.position): what the total is scaled from. */
  readonly position?: Readonly<ReadPosition> | undefined;
}

export interface ProgressOptions {
  /** Show progress at all. @default true */
  enabled?: boolean;
  /** Milliseconds between progress records when not on a terminal. @default 5000 */
  intervalMs?: number;
  /**
   * Where progress goes: a TTY gets a bar, any other stream (a file, a pipe) a progress record a
   * line, as JSON. @default standard error: a bar on a terminal, else the records through the
   * logger, at info
   */
  stream?: NodeJS.WritableStream;
  /**
   * The terminal's status line, shared with whatever else prints there (the CLI's log lines), so
   * that their lines go above the bar. Without it a TTY stream gets a status line of its own.
   */
  statusLine?: StatusLine;
}

export interface Progress {
  stop(): void;
}

/** Often enough to look alive, rarely enough to cost nothing. */
const REDRAW_MS = 250;
const DEFAULT_INTERVAL_MS = 5000;
const BAR_WIDTH = 20;

interface Rates {
  readonly rowsPerSecond: number;
  readonly requestsPerSecond: number;
  readonly estimatedTotalRows: number | undefined;
  readonly etaSeconds: number | undefined;
}

/**
 * Rates over this session, the estimated total, and the time left: the rows not yet done at
 * `pace` (rows done per second lately, see Pace), or at the session's rate without one.
 */
export function rates(
  now: ProgressSnapshot,
  start: ProgressSnapshot,
  elapsedMs: number,
  pace?: number,
): Rates {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rowsPerSecond = (now.rowsDone - start.rowsDone) / seconds;
  const requestsPerSecond = (now.requests - start.requests) / seconds;
  const estimate = estimateTotal(now);
  const speed = pace ?? rowsPerSecond;
  const etaSeconds = estimate !== undefined && speed > 0 ? (estimate - now.rowsDone) / speed : undefined;
  return { rowsPerSecond, requestsPerSecond, estimatedTotalRows: estimate, etaSeconds };
}

/**
 * The JSON progress record written off a terminal (documented in the README): every key always
 * present, `null` where there is no estimate yet.
 */
export function progressRecord(
  now: ProgressSnapshot,
  start: ProgressSnapshot,
  elapsedMs: number,
  pace?: number,
) {
  const r = rates(now, start, elapsedMs, pace);
  const total = r.estimatedTotalRows ?? null;
  return {
    event: 'progress' as const,
    rowsDone: now.rowsDone,
    rowsRead: now.rowsRead,
    rowsFailed: now.rowsFailed,
    rowsTotal: total,
    percent: total === null || total === 0 ? null : Math.min(100, Math.floor((now.rowsDone / total) * 100)),
    requests: now.requests,
    rowsPerSecond: Math.round(r.rowsPerSecond),
    requestsPerSecond: Math.round(r.requestsPerSecond * 10) / 10,
    elapsedSeconds: Math.round(elapsedMs / 1000),
    etaSeconds: r.etaSeconds === undefined ? null : Math.round(r.etaSeconds),
  };
}

/** The bar's text: a gauge when a total is known, counts and rates always. */
export function barText(
  now: ProgressSnapshot,
  start: ProgressSnapshot,
  elapsedMs: number,
  pace?: number,
): string {
  const bytes = now.position?.bytes ?? now.bytesRead;
  if (now.rowsRead === 0 && bytes > 0 && now.bytesTotal !== undefined && now.bytesTotal > 0) {
    // Nothing handed on yet: a sample reads the whole input first, a big header takes a moment.
    const share = Math.min(bytes / now.bytesTotal, 1);
    return `reading input ${Math.floor(share * 100)}% of ${megabytes(now.bytesTotal)}`;
  }
  const r = rates(now, start, elapsedMs, pace);
  const tail = `${Math.round(r.rowsPerSecond)} rows/s · ${Math.round(r.requestsPerSecond)} req/s · ${now.rowsFailed} failed`;
  const total = r.estimatedTotalRows;
  if (total === undefined || total === 0) return `${now.rowsDone} rows · ${tail}`;
  const share = Math.min(now.rowsDone / total, 1);
  const filled = Math.round(share * BAR_WIDTH);
  const gauge = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  const eta = r.etaSeconds === undefined ? '?' : durationText(r.etaSeconds);
  return `${gauge} ${Math.floor(share * 100)}% · ${now.rowsDone}/${total} rows · ${tail} · ETA ${eta}`;
}

export function startProgress(
  snapshot: () => ProgressSnapshot,
  logger: Logger,
  options: ProgressOptions = {},
): Progress {
  if (options.enabled === false) return { stop() {} };
  const stream = options.stream ?? process.stderr;
  const started = Date.now();
  const first = snapshot();
  const pace = new Pace();
  pace.note(started, first.rowsDone);
  /** The snapshot now, and what the progress line or record is drawn from. */
  const take = (): Parameters<typeof barText> => {
    const now = snapshot();
    const ms = Date.now();
    return [now, first, ms - started, pace.note(ms, now.rowsDone)];
  };
  // A dumb terminal (an editor's shell buffer) shows cursor controls as garbage: records there.
  const tty = isTTY(stream) && process.env.TERM !== 'dumb';
  if (options.statusLine !== undefined || tty) {
    const own = options.statusLine === undefined ? createStatusLine(stream as NodeJS.WriteStream) : undefined;
    const line = options.statusLine ?? (own as StatusLine);
    const columns = () => ((stream as Partial<NodeJS.WriteStream>).columns || 80) - 1;
    const draw = () => line.status(fitted(barText(...take()), columns()));
    draw();
    const timer = setInterval(draw, REDRAW_MS);
    timer.unref();
    return {
      stop() {
        clearInterval(timer);
        // The summary that follows says where the run ended: the bar goes, the terminal is clean.
        if (own === undefined) line.clear();
        else own.dispose();
      },
    };
  }
  // A stream of the caller's own gets the records, a JSON line each; standard error's go through
  // the log, which writes them there in its own format among its other lines, unless standard
  // error is a terminal that draws no bar (TERM=dumb): a person reads those lines there.
  const given = options.stream;
  const log = given === undefined && isTTY(stream) ? personLog(stream) : logger;
  const emit = () => {
    const record = progressRecord(...take());
    if (given === undefined) log.info(record, 'progress');
    else given.write(`${JSON.stringify(record)}\n`);
  };
  const timer = setInterval(emit, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      // A file watched for progress gets where the run ended, not its last interval's figure (a
      // run shorter than the interval got no line at all). The log has the summary for that.
      if (given !== undefined) emit();
    },
  };
}

function isTTY(stream: NodeJS.WritableStream): boolean {
  return (stream as Partial<NodeJS.WriteStream>).isTTY === true;
}

/**
 * Where a dumb terminal's progress lines go: standard error, pretty, at info whatever the run's
 * log level, and there even when the log goes to a file. They stand in for the bar, which a
 * person at a terminal sees at any level (`--no-progress` is what turns it off); progress records
 * in a log (a pipe, a file, cron) are log lines, and `--log-level warn` drops them.
 */
function personLog(terminal: NodeJS.WritableStream): Logger {
  return createLogger({
    level: 'info',
    destination: terminal,
    pretty: { colour: colourWanted(process.env, true) },
  });
}

/**
 * The bar's text for a terminal `columns` wide: a narrow one loses the gauge first, which the
 * percentage says too, rather than the failures and the ETA at the end (the status line cuts
 * what is still too long).
 */
export function fitted(text: string, columns: number): string {
  if ([...text].length <= columns) return text;
  return text.replace(/^[█░]+ /u, '');
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
}
