/** Tables of the confirmations module (src/db/migrations/0125_confirmations.sql). */
import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './core.js';

type Instant = ColumnType<Date, Date | string, Date | string>;

/** One moment to ask: hours before the start, or a local time some days before. */
export type ConfirmationStep = { hoursBefore: number } | { daysBefore: number; at: string };

export interface ConfirmationRulesTable {
  clinic_id: string;
  steps: Json<ConfirmationStep[]>;
  calendar_ids: ColumnType<string[], string[] | undefined, string[]>;
  categories: ColumnType<string[], string[] | undefined, string[]>;
  channels: string[];
  max_attempts: number;
  retry_after_minutes: number;
  quiet_start: string;
  quiet_end: string;
  updated_at: Timestamp;
}

export interface AppointmentConfirmationsTable {
  clinic_id: string;
  appointment_id: string;
  /** The appointment's time the attempts were about: after a move they no longer count (migration 0130). */
  start_at: Instant;
  attempts: ColumnType<number, number | undefined, number>;
  last_attempt_at: NullableTimestamp;
  last_outcome: string | null;
  closed: ColumnType<boolean, boolean | undefined, boolean>;
  updated_at: Timestamp;
}

export interface ConfirmationContactsTable {
  clinic_id: string;
  patient_id: string;
  opted_out: ColumnType<boolean, boolean | undefined, boolean>;
  wrong_phone: string | null;
  updated_at: Timestamp;
}

export interface ConfirmationAttemptsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  appointment_id: string;
  patient_id: string;
  channel: string;
  outcome: string;
  task_id: string | null;
  external_call_id: string | null;
  note: string | null;
  created_at: Timestamp;
}

export interface ConfirmationDueMarksTable {
  clinic_id: string;
  appointment_id: string;
  step: number;
  due_at: Instant;
  created_at: Timestamp;
}

export interface ConfirmationTables {
  confirmation_rules: ConfirmationRulesTable;
  appointment_confirmations: AppointmentConfirmationsTable;
  confirmation_contacts: ConfirmationContactsTable;
  confirmation_attempts: ConfirmationAttemptsTable;
  confirmation_due_marks: ConfirmationDueMarksTable;
}
