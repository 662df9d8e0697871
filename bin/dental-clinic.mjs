#!/usr/bin/env node
// The back-office command line: `npx dental-clinic --help`. Runs the compiled CLI (`npm run build`,
// done by `npm install`); `npm run dev:cli` runs the TypeScript source instead.
import fs from 'node:fs';

const entry = new URL('../dist/src/cli/index.js', import.meta.url);
if (!fs.existsSync(entry)) {
  console.error('error: the CLI is not built: run "npm run build" (npm install does it) in the repository.');
  process.exit(1);
}
await import(entry.href);
