#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (node --cpu-prof): self time by function and by file, top N.
// Usage: node scripts/proof-cpuprofile.mjs file.cpuprofile [N]
import fs from 'node:fs';

const [file, n = '30'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTime = new Map();
const fileTime = new Map();
for (const [id, t] of self) {
  const { callFrame: f } = byId.get(id);
  const where = f.url ? f.url.replace(/^.*node_modules\//, 'nm:').replace(/^file:\/\/.*?\/(src|bench|test)\//, '$1/') : '(native)';
  const key = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
  fnTime.set(key, (fnTime.get(key) ?? 0) + t);
  const pkg = where.startsWith('nm:')
    ? where
        .split('/')
        .slice(0, where.startsWith('nm:@') ? 2 : 1)
        .join('/')
    : where.split(':')[0];
  fileTime.set(pkg, (fileTime.get(pkg) ?? 0) + t);
}
const show = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
};
show('self time by function', fnTime);
show('self time by package or file', fileTime);
