/** `geobatch emulator`: serve the emulator until SIGINT, SIGTERM or SIGHUP, printing where and how to reach it. */
import { Command } from 'commander';
import { isLoopback } from '../emulator/control.js';
import type { EmulatorHandle, FaultConfig, InterfaceName } from '../emulator/index.js';
import { INTERFACE_NAMES } from '../emulator/types.js';
import { UsageError } from '../errors.js';
import { holdSignals } from './_early-signals.js';
import { EMULATOR_HELP } from './_help.js';

interface Flags {
  port: string;
  host: string;
  latency?: string;
  faults?: string;
  rateLimit?: string;
  quotaAfter?: string;
  faultInterfaces?: string;
  tokenTtl: string;
}

export function emulatorCommand(): Command {
  return new Command('emulator')
    .description('serve an emulator of the geo services on bundled open data (for tests, demos, benchmarks)')
    .option('--port <port>', 'TCP port, 0 for any free one', '8787')
    .option(
      '--host <host>',
      'address to bind; anything but loopback exposes the demo credentials',
      '127.0.0.1',
    )
    .option('--latency <ms>', 'added to every answer: fixed or fixed:jitter in ms, e.g. 20:5')
    .option(
      '--faults <list>',
      "fault settings, e.g. 'error500=0.05,error503=0.05,reset=0.02,error429=0.05,seed=1'",
    )
    .option('--rate-limit <rps>', 'server-side limit in requests per second (429 + Retry-After beyond it)')
    .option('--quota-after <n>', 'answer 402 after this many service requests')
    .option(
      '--fault-interfaces <list>',
      `restrict random faults to these interfaces (${INTERFACE_NAMES.join(',')})`,
    )
    .option('--token-ttl <seconds>', 'autocomplete token lifetime', '600')
    .addHelpText('after', EMULATOR_HELP)
    .action(async (flags: Flags) => {
      const options = parseFlags(flags);
      if (!isLoopback(options.host) && options.host !== 'localhost') {
        process.stderr.write(
          `WARNING: binding ${options.host}: anyone who can reach it may use the services with the printed demo credentials.\n` +
            'WARNING: the control endpoints (/_emulator) still answer loopback clients only.\n',
        );
      }
      const { startEmulator } = await import('../emulator/index.js');
      const handle = await startEmulator({ ...options, preload: true });
      process.stdout.write(banner(handle));
      await untilSignal(handle);
    });
}

export function parseFlags(flags: Flags) {
  const faults: FaultConfig = flags.faults ? parseFaults(flags.faults) : {};
  if (flags.latency !== undefined) {
    const m = /^(\d+(?:\.\d+)?)(?::(\d+(?:\.\d+)?))?$/.exec(flags.latency.trim());
    if (!m) throw usage('--latency', 'milliseconds as FIXED or FIXED:JITTER, e.g. 20:5', flags.latency);
    faults.latency = { fixedMs: Number(m[1]), jitterMs: Number(m[2] ?? 0) };
  }
  if (flags.rateLimit !== undefined) faults.rateLimit = { rps: positive('--rate-limit', flags.rateLimit) };
  if (flags.quotaAfter !== undefined)
    faults.quotaAfter = integer('--quota-after', flags.quotaAfter, 0, 2 ** 31);
  if (flags.faultInterfaces !== undefined) {
    const list = flags.faultInterfaces.split(',').map((s) => s.trim());
    const bad = list.find((i) => !(INTERFACE_NAMES as readonly string[]).includes(i));
    if (bad !== undefined)
      throw usage('--fault-interfaces', `a comma list of ${INTERFACE_NAMES.join(', ')}`, bad);
    faults.interfaces = list as InterfaceName[];
  }
  return {
    port: integer('--port', flags.port, 0, 65535),
    host: flags.host,
    tokenTtlSeconds: positive('--token-ttl', flags.tokenTtl),
    faults,
  };
}

const PROBABILITY_KEYS = [
  'reset',
  'hang',
  'error429',
  'error500',
  'error502',
  'error503',
  'malformed',
] as const;

function parseFaults(text: string): FaultConfig {
  const faults: FaultConfig = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key = '', value = ''] = part.split('=').map((s) => s.trim());
    if ((PROBABILITY_KEYS as readonly string[]).includes(key)) {
      const p = Number(value);
      if (value === '' || !(p >= 0 && p <= 1))
        throw usage('--faults', `${key}=<probability from 0 to 1>`, part);
      faults[key as (typeof PROBABILITY_KEYS)[number]] = p;
    } else if (key === 'seed') {
      faults.seed = integer('--faults', value, -(2 ** 31), 2 ** 32);
    } else if (key === 'retryAfter') {
      faults.retryAfter = { ...faults.retryAfter, seconds: integer('--faults', value, 0, 86_400) };
    } else if (key === 'retryAfterForm') {
      if (value !== 'seconds' && value !== 'http-date' && value !== 'alternate') {
        throw usage('--faults', 'retryAfterForm=seconds|http-date|alternate', part);
      }
      faults.retryAfter = { ...faults.retryAfter, form: value };
    } else {
      const known = [...PROBABILITY_KEYS, 'seed', 'retryAfter', 'retryAfterForm'].join(', ');
      throw usage('--faults', `comma-separated key=value pairs with keys ${known}`, part);
    }
  }
  return faults;
}

function usage(flag: string, expected: string, received: string): UsageError {
  return new UsageError(`Expected \`${flag}\` to be ${expected}, got \`${received}\``, {
    expected,
    received,
    path: flag,
  });
}

function integer(flag: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw usage(flag, `an integer from ${min} to ${max}`, raw);
  }
  return n;
}

function positive(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !(n > 0) || !Number.isFinite(n)) throw usage(flag, 'a positive number', raw);
  return n;
}

function banner(handle: EmulatorHandle): string {
  const { urls: u, credentials: c } = handle;
  const faults = JSON.stringify(handle.faults());
  return [
    `geobatch emulator listening on ${u.origin}`,
    '',
    `  address search  ${u.addressSearch}/{ByBranchesAndAddress,ByBranchesAndPosition,ByBranchesAndRectangle,ByCustomerId,ByIdentifier}`,
    `                  Authorization: Basic ${c.partner}:${c.partnerKey} (${c.basicHeader})`,
    `  routing         POST ${u.geojson}/route?apiKey=${c.apiKey}`,
    `  geocoding       POST ${u.geojson}/geocode?apiKey=${c.apiKey}`,
    `  token           GET  ${u.token}/api_rst/api/autocompleteToken?apiKey=${c.apiKey}`,
    `                  GET  ${u.token}/api_rst/v2/authtoken?systemPartner=${c.systemPartner}&securityID=${c.securityID}`,
    `  autocomplete    POST ${u.autocomplete} (Authorization: Bearer <token>)`,
    `  area            ${u.area}/api/v2/Boundaries/{point,rectangle,osmid}?apiKey=${c.apiKey}`,
    `  elevation       ${u.elevation}/api/v2/Elevation/point?apiKey=${c.apiKey}`,
    `  control         ${u.control}/{faults,stats,stats/reset,log} (loopback only)`,
    `  faults          ${faults === '{}' ? 'none' : faults}`,
    '',
    '# point geobatch at it:',
    `export GEOBATCH_EMULATOR_URL=${u.origin}`,
    `export GEOBATCH_API_KEY=${c.apiKey}`,
    `export GEOBATCH_PARTNER=${c.partner}`,
    `export GEOBATCH_PARTNER_KEY=${c.partnerKey}`,
    `export GEOBATCH_SYSTEM_PARTNER=${c.systemPartner}`,
    `export GEOBATCH_SECURITY_ID=${c.securityID}`,
    '',
    'Data: © GeoNames CC BY 4.0; © GeoBasis-DE / BKG 2021 (dl-de/by-2-0); SRTM courtesy of NASA/USGS (modified).',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/**
 * SIGHUP as well: an emulator started in a terminal that is then closed (or over SSH) closes as on
 * SIGTERM, rather than ending with Node's default (status 129) and its connections cut.
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Resolves once one of STOP_SIGNALS has closed the server, so the process ends with exit code 0. */
function untilSignal(handle: EmulatorHandle): Promise<void> {
  return new Promise((resolve) => {
    const letGo = holdSignals();
    const stop = (signal: NodeJS.Signals) => {
      for (const name of STOP_SIGNALS) process.off(name, stop);
      letGo();
      process.stderr.write(`${signal}: stopping the emulator\n`);
      void handle.close().then(resolve);
    };
    for (const name of STOP_SIGNALS) process.on(name, stop);
  });
}
