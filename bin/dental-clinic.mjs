#!/usr/bin/env node
// The back-office command line: `npx dental-clinic --help`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
