/**
 * The end of a benchmark server script (bench/lib/server.ts, bench/lib/voice-server.ts): print the
 * `{"ready": …}` line startServerProcess (harness.ts) waits for, then serve until SIGTERM or
 * SIGINT, closing the app and the database and removing the embedded data folder.
 */
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { closeContext } from '../../src/bootstrap.js';
import type { AppContext } from '../../src/context.js';

export function serveUntilSignal(app: FastifyInstance, ctx: AppContext, dataDir: string | null, ready: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ready })}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await closeContext(ctx);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
