/**
 * A process that competes for a data folder's lock when told to (test/proof/data-folder-lock.test.ts).
 * Messages: { dir, at } tries to lock `dir` at time `at` (epoch ms, spun on so that every
 * contender starts together) and answers { owner, error? }; 'release' gives the lock back and
 * answers 'released'.
 */
import { lockDataFolder } from '../../src/db/data-folder-lock.js';

let release: (() => void) | null = null;

process.on('message', (message: { dir: string; at: number } | 'release') => {
  if (message === 'release') {
    release?.();
    release = null;
    process.send!('released');
    return;
  }
  while (Date.now() < message.at) {
    // spin: a timer would wake each contender at a different moment
  }
  try {
    release = lockDataFolder(message.dir);
    process.send!({ owner: true });
  } catch (error) {
    process.send!({ owner: false, error: (error as Error).message });
  }
});
process.on('disconnect', () => process.exit(0));
process.send!('ready');
