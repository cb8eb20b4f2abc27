/**
 * The project's logger: pino, JSON lines to stderr (or a file), with two layers against leaks.
 *
 * 1. `redact` paths blank the fields that hold credentials by name (apiKey, securityID, tokens,
 *    Authorization headers), whatever their value, registered or not.
 * 2. Every serialized line then passes through `scrub`, which replaces each registered secret by
 *    value: this is what catches a key inside a URL, an error message or a library's text.
 * URLs should still be logged through `redactUrl`, which also masks unregistered key parameters.
 *
 * Lines are JSON. `prettyLine` turns one (already scrubbed) into what a person at a terminal
 * reads; the CLI decides where that is wanted (see src/cli/_display.ts).
 */
import type { DestinationStream, Level, Logger } from 'pino';
import { pino } from 'pino';
import { scrub } from './secrets.js';

export type { Logger };

export interface LoggerOptions {
  /** @default 'info' */
  level?: Level | 'silent';
  /** A file path, a file descriptor, or a stream. @default 2 (stderr, so stdout stays data) */
  destination?: string | number | DestinationStream;
  /** Added to every line as `name`. @default 'geobatch' */
  name?: string;
  /** Write lines for a person (`prettyLine`) instead of JSON. @default undefined (JSON) */
  pretty?: PrettyOptions;
}

export interface PrettyOptions {
  /** Colour the level labels. @default false */
  colour?: boolean;
  /** Records with these `event`s are left out (shown otherwise, as the CLI shows `run.end`). */
  omitEvents?: readonly string[];
}

const SECRET_FIELDS = [
  'apiKey',
  'systemPartner',
  'securityID',
  'partnerKey',
  'password',
  'token',
  'AuthToken',
  'authorization',
  'Authorization',
  'credentials',
];

/** Field paths whose values never reach a log line, at the top level, one level down and in headers. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  'headers.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'req.headers.authorization',
  'request.headers.authorization',
];

const CENSOR = '[redacted]';

/** Creates a logger with redaction on; see the module comment for what is and is not covered. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? 2;
  const target =
    typeof destination === 'object'
      ? destination
      : // Synchronous: a fatal error's last line must reach the file before the process exits.
        pino.destination({
          dest: destination,
          sync: true,
          ...(typeof destination === 'string' ? { mkdir: true } : {}),
        });
  const stream = options.pretty === undefined ? target : prettyStream(target, options.pretty);
  return pino(
    {
      name: options.name ?? 'geobatch',
      level: options.level ?? 'info',
      redact: { paths: [...REDACT_PATHS], censor: CENSOR },
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: scrub },
    },
    stream,
  );
}

/** `target` taking pretty lines: each JSON line (scrubbed already, by the hook) is rewritten. */
function prettyStream(target: DestinationStream, options: PrettyOptions): DestinationStream {
  const omitted = new Set(options.omitEvents ?? []);
  return {
    write(line: string) {
      const record = parseRecord(line);
      if (record === undefined) target.write(line);
      else if (!omitted.has(String(record.event)))
        target.write(prettyRecord(record, options.colour === true));
    },
  };
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Fields every pino line has that a person at a terminal does not need to read. */
const PLAIN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'event']);

/** SGR colours by level: dim for chatter, yellow and red for what needs a look. */
const LEVEL_COLOURS: Readonly<Record<string, string>> = {
  trace: '90',
  debug: '90',
  info: '36',
  warn: '33',
  error: '31',
  fatal: '31',
};

/**
 * One JSON log line as a person reads it: `12:00:01 WARN  message key=value`. A record with an
 * `event` (run.start, progress, ...) is written for reading: its message alone says it. An error
 * shows its message; its stack stays in the JSON log. Anything that is not a JSON object passes
 * through unchanged.
 */
export function prettyLine(line: string, colour = false): string {
  const record = parseRecord(line);
  return record === undefined ? line : prettyRecord(record, colour);
}

function prettyRecord(record: Record<string, unknown>, colour: boolean): string {
  const level = String(record.level ?? 'info');
  const label = level.toUpperCase().padEnd(5);
  const shownLabel = colour ? `\x1b[${LEVEL_COLOURS[level] ?? '0'}m${label}\x1b[0m` : label;
  const time = typeof record.time === 'number' ? new Date(record.time).toTimeString().slice(0, 8) : '';
  const fields =
    record.event === 'progress'
      ? [progressText(record)]
      : record.event === undefined
        ? Object.entries(record)
            .filter(([key, value]) => !PLAIN_FIELDS.has(key) && value !== undefined)
            .map(([key, value]) => `${key}=${shownValue(key, value)}`)
        : [];
  return `${[time, shownLabel, String(record.msg ?? ''), ...fields].filter((part) => part !== '').join(' ')}\n`;
}

/**
 * A progress record as a person reads it where no bar can be drawn (TERM=dumb, a pretty log file):
 * `46% · 70/150 rows · 35 rows/s · 1 failed · ETA 2s`. Records of other events show their message
 * alone, which says it all; "progress" says nothing.
 */
function progressText(record: Record<string, unknown>): string {
  const n = (key: string) => (typeof record[key] === 'number' ? (record[key] as number) : undefined);
  const done = n('rowsDone') ?? 0;
  const total = n('rowsTotal');
  const eta = n('etaSeconds');
  return [
    n('percent') === undefined ? undefined : `${n('percent')}%`,
    total === undefined ? `${done} rows` : `${done}/${total} rows`,
    `${n('rowsPerSecond') ?? 0} rows/s`,
    `${n('rowsFailed') ?? 0} failed`,
    eta === undefined ? undefined : `ETA ${durationText(eta)}`,
  ]
    .filter((part) => part !== undefined)
    .join(' · ');
}

/**
 * A span of seconds as a person reads it, to the second under an hour, to the minute beyond:
 * `45s`, `1m17s`, `1h04m`. One wording for the time left wherever a person reads it: the
 * terminal's bar (run/progress.ts) and the progress lines where no bar is drawn.
 */
export function durationText(seconds: number): string {
  const s = Math.max(Math.round(seconds), 0);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function shownValue(key: string, value: unknown): string {
  if ((key === 'err' || key === 'error') && value !== null && typeof value === 'object') {
    const { message, code } = value as { message?: unknown; code?: unknown };
    if (message !== undefined) return JSON.stringify(code === undefined ? message : `${code}: ${message}`);
  }
  return typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
}

/**
 * Whether text for `stream` may carry colour. In order: NO_COLOR set (not empty) says no
 * (no-color.org); FORCE_COLOR says yes, unless it is `0` or `false`; TERM=dumb says no; otherwise
 * colour only on a terminal.
 */
export function colourWanted(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return !['0', 'false'].includes(env.FORCE_COLOR.toLowerCase());
  if (env.TERM === 'dumb') return false;
  return isTTY;
}
