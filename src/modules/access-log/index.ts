/** The front door of src/modules/access-log: what code outside the module uses of it (test/layers.test.ts). */
export { AccessLogEntrySchema, AccessLogQuerySchema } from './schema.js';
export { listAccessLog, purgeUnnamedLists } from './service.js';
export { AccessLogWriter } from './writer.js';
