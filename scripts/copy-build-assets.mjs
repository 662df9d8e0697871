// After `tsc -p tsconfig.build.json`: the files the compiled service reads at run time that tsc
// does not emit (the SQL migrations, found beside dist/src/db/migrate.js as beside the source).
// The output folder is the first argument (default dist; the benchmarks' build uses dist-bench).
import fs from 'node:fs';

const out = process.argv[2] ?? 'dist';
fs.rmSync(`${out}/src/db/migrations`, { recursive: true, force: true });
fs.cpSync('src/db/migrations', `${out}/src/db/migrations`, { recursive: true });
