/** Tables of the recalls module (src/db/migrations/0111_recalls.sql). */
import type { ColumnType } from 'kysely';
import type { NullableTimestamp, Timestamp } from './core.js';

type Instant = ColumnType<Date, Date | string, Date | string>;

export interface RecallRulesTable {
  clinic_id: string;
  categories: ColumnType<string[], string[] | undefined, string[]>;
  types: ColumnType<string[], string[] | undefined, string[]>;
  interval_months: ColumnType<number, number | undefined, number>;
  max_attempts_per_week: ColumnType<number, number | undefined, number>;
  quiet_start: ColumnType<string, string | undefined, string>;
  quiet_end: ColumnType<string, string | undefined, string>;
  updated_at: Timestamp;
}

export interface RecallWorklistTable {
  clinic_id: string;
  patient_id: string;
  last_visit_at: Instant;
  last_category: string | null;
  last_type: string | null;
  due_at: Instant;
  refreshed_at: Timestamp;
}

export interface RecallContactsTable {
  clinic_id: string;
  patient_id: string;
  snoozed_until: NullableTimestamp;
  opted_out: ColumnType<boolean, boolean | undefined, boolean>;
  wrong_phone: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  last_attempt_at: NullableTimestamp;
  last_outcome: string | null;
  updated_at: Timestamp;
}

export interface RecallAttemptsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string;
  channel: string;
  outcome: string;
  appointment_id: string | null;
  callback_at: NullableTimestamp;
  task_id: string | null;
  external_call_id: string | null;
  note: string | null;
  created_at: Timestamp;
}

export interface RecallTables {
  recall_rules: RecallRulesTable;
  recall_worklist: RecallWorklistTable;
  recall_contacts: RecallContactsTable;
  recall_attempts: RecallAttemptsTable;
}
