/** The front door of src/modules/meta: what code outside the module uses of it (test/layers.test.ts). */
export { EventTypeListSchema, MetaSchema } from './schema.js';
export { eventTypes, getMeta } from './service.js';
