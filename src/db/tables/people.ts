/** Tables added by the people module's migrations (see src/db/migrations/0010_people.sql). */
import type { NullableTimestamp, Timestamp } from './core.js';

export interface LeadActivitiesTable {
  id: string;
  clinic_id: string;
  lead_id: string;
  kind: string;
  body: string;
  at: Timestamp;
  created_at: Timestamp;
}

export interface CallsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  external_call_id: string;
  direction: 'inbound' | 'outbound';
  from_number: string;
  to_number: string;
  started_at: NullableTimestamp;
  duration_seconds: number | null;
  outcome: string | null;
  summary: string | null;
  recording_url: string | null;
  transcript: string | null;
  patient_id: string | null;
  lead_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PatientNameTermsTable {
  clinic_id: string;
  term: string;
  phon: string | null;
}

export interface PatientNameKeysTable {
  clinic_id: string;
  key: string;
  term: string;
}

export interface PeopleTables {
  patient_name_keys: PatientNameKeysTable;
  patient_name_terms: PatientNameTermsTable;
  lead_activities: LeadActivitiesTable;
  calls: CallsTable;
}
