// `npm run build` of the package: tsc to dist/ (JavaScript, .d.ts), then the files tsc does not
// emit: the generated schema.d.ts (types only) and the OpenAPI document of `exports["./openapi.json"]`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
for (const file of ['schema.d.ts', 'openapi.json']) fs.copyFileSync(path.join(root, 'src', file), path.join(root, 'dist', file));
