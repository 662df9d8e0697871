// After `tsc -p tsconfig.build.json`: the files the compiled service reads at run time that tsc
// does not emit (the SQL migrations, found beside dist/src/db/migrate.js as beside the source).
import fs from 'node:fs';

fs.rmSync('dist/src/db/migrations', { recursive: true, force: true });
fs.cpSync('src/db/migrations', 'dist/src/db/migrations', { recursive: true });
