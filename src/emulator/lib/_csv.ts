/**
 * A small RFC 4180 reader for the bundled data files (quoted fields, doubled quotes, CRLF or LF).
 * Lines without quotes take a split(',') fast path: the emulator reads ~30,000 rows at every start.
 */
export function parseCsv(text: string): Record<string, string>[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = splitLine(lines[0] ?? '');
  const out: Record<string, string>[] = [];
  for (let i = 1; i < lines.length; i++) {
    let line = lines[i] as string;
    // A quoted field may hold a line break: join lines until the quotes balance.
    while (quoteCount(line) % 2 === 1 && i + 1 < lines.length) line += `\n${lines[++i]}`;
    if (line === '') continue;
    const fields = splitLine(line);
    const record: Record<string, string> = {};
    for (let h = 0; h < header.length; h++) record[header[h] as string] = fields[h] ?? '';
    out.push(record);
  }
  return out;
}

function quoteCount(line: string): number {
  let n = 0;
  for (let at = line.indexOf('"'); at >= 0; at = line.indexOf('"', at + 1)) n++;
  return n;
}

function splitLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = line.indexOf('"', from);
        if (q < 0) throw new Error('Unterminated quoted CSV field');
        value += line.slice(from, q);
        if (line[q + 1] !== '"') {
          i = q + 1;
          break;
        }
        value += '"';
        from = q + 2;
      }
      fields.push(value);
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? line.length : comma;
      fields.push(line.slice(i, end));
      i = end;
    }
    if (line[i] !== ',') break;
    i++;
    if (i === line.length) fields.push('');
  }
  return fields;
}
