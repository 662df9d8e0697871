/** The front door of src/modules/holds: what code outside the module uses of it (test/layers.test.ts). */
export { HOLD_LIFE_SECONDS, holderlessRefusal, keyHolderRef, keyLimitRefusal, lifeDeadline, lifeRefusal } from './caps.js';
export type { HoldRefusal } from './caps.js';
export { HOLD_REASONS } from './reasons.js';
export { HOLD_TTL, HOLDS_PER_KEY, HoldSchema, NewHoldSchema } from './schema.js';
export type { HoldView, NewHold } from './schema.js';
export { holdView, purgeLapsedHolds } from './service.js';
export { deleteUnusedHold, insertHold, keyHoldOf, markHoldUsed, replaceAndCount } from './store.js';
export type { HoldRow } from './store.js';
