/**
 * What a worker needs to build the job of a run it has never seen, from the queue database alone:
 * the job file's text, the command line's settings, the files the job reads whole (a matrix's
 * destinations), and the cache to share. Never a credential: a job file's secrets are `${VAR}`
 * references (literal ones are refused when it loads), and each worker reads the variables from
 * its own environment; a cache URL is kept without its password.
 *
 * The worker writes the files under a directory of its own at the paths they had on the
 * coordinator's machine, and loads the job file from there: relative paths in it then find them.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { CST, type Document, isNode, Lexer, parseDocument, visit } from 'yaml';
import { isPostgresUrl, withoutPassword } from '../cache/_pg-url.js';
import { CACHE_ENV, type CacheFlags, resolveCacheSettings } from '../cache/settings.js';
import type { Env } from '../config/env.js';
import { type JobConfig, parseJobFile } from '../config/load.js';
import { applyOverrides, type Overrides } from '../config/overrides.js';
import { ConfigError } from '../errors.js';

/** The command line's settings a worker applies as the coordinator did (paths are not read there). */
export type RecipeOverrides = Omit<Overrides, 'service'>;

export interface Recipe {
  /** The job file's absolute path on the coordinator's machine. */
  readonly file: string;
  /** Its text, `${VAR}` references unresolved. */
  readonly text: string;
  readonly overrides: RecipeOverrides;
  /** The coordinator ran against an emulator: workers must too (`--emulator` or GEOBATCH_EMULATOR_URL). */
  readonly emulator: boolean;
  /**
   * The shared request cache: `queue` for the queue database's own cache tables, a postgres URL
   * without its password, or off. Its mode and the job file's lifetimes apply.
   */
  readonly cache: { readonly location: 'queue' | string | false; readonly mode?: string };
}

export interface RecipeFile {
  readonly path: string;
  readonly content: Buffer;
}

/**
 * The job file's text as the queue database keeps it: without its comments. A comment is free
 * text the credential checks never see (they read values), and `# my key is ...` went into every
 * run's stored recipe. Everything else is kept byte for byte: the worker parses this text, and a
 * re-written document loses how a value was written (`zip: { value: 010670 }` came back as
 * `10670`, which the worker then sent while the coordinator checked `010670`: config/_written.ts).
 */
/** yaml's warnings (config/load.ts) were the loader's to give; a second parse prints none. */
const QUIET = { logLevel: 'error' } as const;

export function storedText(text: string, file = 'the job file'): string {
  const original = parseDocument(text, QUIET);
  // The text was loaded already; a document that does not parse now is kept as it is.
  if (original.errors.length > 0) return text;
  // The lexer's tokens are the text itself; should the values ever read otherwise without the
  // comments, the document is written again, and refused if that too changes a value or its text.
  // The fallback is built only when needed: the re-written document costs a parse of its own.
  for (const store of [() => withoutComments(text), () => rewritten(parseDocument(text, QUIET))]) {
    const stored = store();
    if (sameValues(parseDocument(stored, QUIET), original)) return stored;
  }
  throw new ConfigError(
    `${file}: cannot be stored for the workers without its comments and keep its values as written`,
    {
      file,
      expected: 'a job file whose comments can be dropped without changing a value',
      hint: 'remove the comments from the job file (a comment line after a block scalar kept with |+ or >+, say) and run again',
    },
  );
}

/** The same values, and every number written alike (`01067` is not `1067` to a job: _written.ts). */
function sameValues(doc: Document, original: Document): boolean {
  return (
    doc.errors.length === 0 &&
    isDeepStrictEqual(doc.toJS(), original.toJS()) &&
    isDeepStrictEqual(numberTexts(doc), numberTexts(original))
  );
}

function numberTexts(doc: Document): (string | undefined)[] {
  const texts: (string | undefined)[] = [];
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'number') texts.push(node.source);
    },
  });
  return texts;
}

/** The lexer's markers: not text of the file (yaml's cst.ts, DOCUMENT, FLOW_END, SCALAR, BOM). */
const SCALAR = '\x1f';
const MARKERS: ReadonlySet<string> = new Set(['\x02', '\x18', SCALAR, '\u{FEFF}']);

/**
 * The text less its comment tokens; a scalar's content (a block scalar's `# not a comment`) stays.
 * A comment alone on its line goes with its line: the blank line left would belong to a block
 * scalar kept with `|+` before it, and change its value.
 */
function withoutComments(text: string): string {
  let kept = '';
  let content = false;
  let lineGone = false;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (content) {
      kept += token;
      content = false;
    } else if (token === SCALAR) content = true;
    else if (MARKERS.has(token)) continue;
    else if (type === 'comment') {
      const alone = /(?:^|\n)[ \t]*$/.exec(kept);
      if (alone !== null) {
        kept = kept.slice(0, kept.length - alone[0].replace(/^\n/, '').length);
        lineGone = true;
      }
    } else if (lineGone && type === 'newline') lineGone = false;
    else {
      kept += token;
      lineGone = false;
    }
  }
  return kept;
}

/** The document written again without comments: values kept, not how they were written. */
function rewritten(doc: Document): string {
  doc.commentBefore = null;
  doc.comment = null;
  visit(doc, {
    // Every node: an alias (`ref: *a # ...`) carries comments as scalars and collections do.
    Node(_, node) {
      if (isNode(node)) {
        node.commentBefore = null;
        node.comment = null;
      }
    },
  });
  return doc.toString();
}

/** The job file's side inputs (read whole by its jobs), by their absolute paths. */
export function sideInputPaths(config: JobConfig): string[] {
  return [
    ...new Set(config.steps.flatMap((step) => Object.values(step.sideInputs).map((spec) => spec.path))),
  ];
}

export async function readRecipeFiles(config: JobConfig): Promise<RecipeFile[]> {
  const files: RecipeFile[] = [];
  for (const path of sideInputPaths(config)) {
    try {
      files.push({ path, content: await readFile(path) });
    } catch (error) {
      throw new ConfigError(`${config.file}: cannot read ${path} for the workers`, {
        file: config.file,
        path,
        cause: error,
      });
    }
  }
  return files;
}

/** Where a cache file the user named came from, as a warning names it. */
const NAMED_BY = { flag: '--cache', env: 'GEOBATCH_CACHE', job: "the job file's cache:" } as const;

/**
 * The cache a queued run's workers share. A file cache cannot be shared between machines: the
 * run then caches in the queue database, which every worker reaches, and a file the user named
 * (not the default one) is ignored with a warning, so that its absence from the run is no
 * surprise. Off stays off.
 */
export function sharedCache(
  config: JobConfig,
  flags: CacheFlags | undefined,
  env: Env = process.env,
  logger?: Logger,
): Recipe['cache'] {
  if (flags === undefined) return { location: false };
  const block = 'cache' in config.document ? config.document.cache : undefined;
  const settings = resolveCacheSettings(block, config.dir, flags, env);
  if (settings === undefined) return { location: false };
  if (!isPostgresUrl(settings.location)) {
    if (settings.source !== 'default')
      logger?.warn(
        { cache: settings.location, from: NAMED_BY[settings.source] },
        `The request cache ${settings.location} (from ${NAMED_BY[settings.source]}) is not used: the workers of a distributed run, on other machines too, share one cache, and a file cannot be shared, so this run caches in the queue database. Give --cache postgres://... for another database, or --no-cache for none`,
      );
    return { location: 'queue', mode: settings.mode };
  }
  // A password in the query (`?password=`) too: the queue database keeps none.
  const { url: location, had } = withoutPassword(settings.location);
  const from = settings.source === 'default' ? 'the default' : NAMED_BY[settings.source];
  if (had)
    logger?.warn(
      { cache: location, from },
      `The request cache's password (from ${from}) is never stored in the queue database: the workers get ${location} without it. Give it on every worker machine with PGPASSWORD or ~/.pgpass, or set GEOBATCH_CACHE to the URL with its password in each worker's environment; a worker without it stops the run with CACHE_UNUSABLE`,
    );
  return { location, mode: settings.mode };
}

/**
 * The environment of the coordinator's own worker: the cache URL this process was given, password
 * included, as its GEOBATCH_CACHE (workerCacheFlags takes it for the same database). It has the
 * recipe's URL otherwise, without the password, and stopped the run it was given.
 */
export function ownWorkerEnv(config: JobConfig, flags: CacheFlags | undefined, env: Env): Env {
  if (flags === undefined) return env;
  const block = 'cache' in config.document ? config.document.cache : undefined;
  const settings = resolveCacheSettings(block, config.dir, flags, env);
  if (settings === undefined || !isPostgresUrl(settings.location) || !withoutPassword(settings.location).had)
    return env;
  return { ...env, [CACHE_ENV]: settings.location };
}

/**
 * The cache flags a worker opens its cache with: the queue database, or the recipe's URL with the
 * password from the worker's own GEOBATCH_CACHE, or from the job file's `cache:` as the worker's
 * environment resolves it (`cache: ${PG_CACHE}`), when that names the same database (else
 * PGPASSWORD or ~/.pgpass, as for any PostgreSQL client). A URL without a password is marked as
 * the queue's (`fromQueue`): refused for want of one, the worker is told why it has none and what
 * to give it.
 */
export function workerCacheFlags(recipe: Recipe, queueUrl: string, env: Env, jobCache?: unknown): CacheFlags {
  const { location, mode } = recipe.cache;
  if (location === false) return { location: false };
  if (location === 'queue') return { location: queueUrl, ...(mode === undefined ? {} : { mode }) };
  const fromJob =
    typeof jobCache === 'string'
      ? jobCache
      : typeof jobCache === 'object' && jobCache !== null
        ? (jobCache as { path?: unknown }).path
        : undefined;
  const candidates = [env.GEOBATCH_CACHE, typeof fromJob === 'string' ? fromJob : undefined];
  const same = (url: string | undefined): url is string =>
    url !== undefined && isPostgresUrl(url) && withoutPassword(url).url === withoutPassword(location).url;
  const chosen =
    candidates.find((url) => same(url) && withoutPassword(url).had) ?? candidates.find(same) ?? location;
  return {
    location: chosen,
    ...(mode === undefined ? {} : { mode }),
    ...(withoutPassword(chosen).had ? {} : { fromQueue: true as const }),
  };
}

/** Writes the recipe's files under `root` and loads the job file as the coordinator did. */
export async function configFromRecipe(
  recipe: Recipe,
  files: readonly RecipeFile[],
  root: string,
  env: Env,
): Promise<JobConfig> {
  for (const file of files) {
    const target = join(root, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content);
  }
  const at = join(root, recipe.file);
  await mkdir(dirname(at), { recursive: true });
  const config = parseJobFile(recipe.text, at, env, recipe.file);
  return applyOverrides(config, recipe.overrides);
}
