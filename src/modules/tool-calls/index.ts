/** The front door of src/modules/tool-calls: what code outside the module uses of it (test/layers.test.ts). */
export { purgeToolCallWrites, toolCallLedger, toolWriteKey } from './service.js';
export type { ToolCallLedger, ToolWrite } from './service.js';
