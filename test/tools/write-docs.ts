/** `npm run docs`: rewrites the README's generated sections from the code they document. */
import { readFileSync, writeFileSync } from 'node:fs';
import { withJobTable } from '../../src/jobs/_docs.js';

const path = new URL('../../README.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = withJobTable(before);
writeFileSync(path, after);
process.stdout.write(before === after ? 'README.md is up to date\n' : 'README.md: job table rewritten\n');
