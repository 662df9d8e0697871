/** The front door of src/modules/chairs: what code outside the module uses of it (test/layers.test.ts). */
export { ChairAdminSchema, ChairSchema, NewChairSchema } from './schema.js';
export { createChair, listAllChairs, listChairs } from './service.js';
