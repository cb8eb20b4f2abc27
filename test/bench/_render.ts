/** The markdown tables for BENCHMARKS.md, from the scenarios' results. */
import type { Machine } from './_machine.js';
import type { ScenarioResult, Table } from './_types.js';

export interface RunInfo extends Machine {
  readonly quick: boolean;
  readonly scenarios: readonly string[];
  readonly totalSeconds: number;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

export function renderTable(table: Table): string {
  const lines = [
    ...(table.caption === undefined ? [] : [`${table.caption}`, '']),
    `| ${table.headers.map(cell).join(' | ')} |`,
    `|${table.headers.map(() => '---').join('|')}|`,
    ...table.rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
  return lines.join('\n');
}

function summaryTable(results: readonly ScenarioResult[]): Table {
  return {
    headers: ['scenario', 'target', 'measured (median, range)', 'met'],
    rows: results.flatMap((r) =>
      r.targets.length === 0
        ? [[r.title.split(':')[0] ?? r.id, 'none (reported as ratios)', 'see its section', '-']]
        : r.targets.map((t) => [
            `${r.title.split(':')[0]}: ${t.name}`,
            t.target,
            t.measured,
            t.met ? 'yes' : 'NO',
          ]),
    ),
  };
}

export function renderMarkdown(info: RunInfo, results: readonly ScenarioResult[]): string {
  const parts = [
    `Machine: ${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB RAM, ${info.os}; Node ${info.node}.`,
    `Date: ${info.date}. Load average when the run started: ${info.loadAverageAtStart.join(', ')}.`,
    `Command: \`${info.command}\`${info.quick ? ' (QUICK smoke run: small inputs, single repetitions; not figures to publish)' : ''}. ` +
      `Whole run: ${info.totalSeconds} s.`,
    '',
    '### Targets',
    '',
    renderTable(summaryTable(results)),
  ];
  for (const r of results) {
    parts.push('', `### ${r.title}`, '');
    for (const table of r.tables) parts.push(renderTable(table), '');
    for (const note of r.notes) parts.push(`- ${note}`);
    if (r.seconds !== undefined) parts.push(`- Scenario time: ${r.seconds} s.`);
  }
  return `${parts.join('\n')}\n`;
}
