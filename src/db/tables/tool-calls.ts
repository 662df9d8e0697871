/** Tables of the tool-calls module (src/db/migrations/0121_tool_call_writes.sql). */
import type { Timestamp } from './core.js';

export interface ToolCallWritesTable {
  clinic_id: string;
  call_id: string;
  tool: string;
  args_hash: string;
  idempotency_key: string;
  written_at: Timestamp;
}

export interface ToolCallTables {
  tool_call_writes: ToolCallWritesTable;
}
