/** Tables of the waitlist module (src/db/migrations/0110_waitlist.sql). */
import type { ColumnType } from 'kysely';
import type { Timestamp } from './core.js';

type Instant = ColumnType<Date, Date | string, Date | string>;

export interface WaitlistEntriesTable {
  id: string;
  clinic_id: string;
  facility_id: string;
  calendar_id: string;
  doctor_id: string | null;
  patient_id: string | null;
  lead_id: string | null;
  earliest: Instant;
  latest: Instant;
  days: ColumnType<string[], string[] | undefined, string[]>;
  parts_of_day: ColumnType<string[], string[] | undefined, string[]>;
  note: string | null;
  channel: string;
  status: ColumnType<string, string | undefined, string>;
  appointment_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WaitlistOffersTable {
  id: string;
  clinic_id: string;
  facility_id: string;
  calendar_id: string;
  entry_id: string;
  doctor_id: string | null;
  chair_id: string | null;
  start_at: Instant;
  end_at: Instant;
  expires_at: Instant;
  status: ColumnType<string, string | undefined, string>;
  appointment_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WaitlistSettingsTable {
  clinic_id: string;
  offer_minutes: ColumnType<number, number | undefined, number>;
  updated_at: Timestamp;
}

export interface WaitlistTables {
  waitlist_entries: WaitlistEntriesTable;
  waitlist_offers: WaitlistOffersTable;
  waitlist_settings: WaitlistSettingsTable;
}
