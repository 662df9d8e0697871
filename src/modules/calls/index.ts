/** The front door of src/modules/calls: what code outside the module uses of it (test/layers.test.ts). */
export { callBodyIssues } from './checks.js';
export { CallDetailSchema, CallInputSchema, CallSchema } from './schema.js';
export { createCall, getCall } from './service.js';
