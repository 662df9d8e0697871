import type { ColumnType, Generated } from 'kysely';

/** A column with a database default: optional on insert. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type Json<T = unknown> = ColumnType<T, string, string>;
export type NullableJson<T = unknown> = ColumnType<T | null, string | null | undefined, string | null>;

export interface ServerSettingsTable {
  key: string;
  value: string;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  suspended_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ClinicsTable {
  id: string;
  organization_id: string;
  name: string;
  mode: 'live' | 'test';
  plan_active: Generated<boolean>;
  patient_limit: number | null;
  ai_enabled: Generated<boolean>;
  timezone: Generated<string>;
  /** Accepting a quote needs a signed document (src/modules/billing/signature.ts). */
  quotes_require_signature: Generated<boolean>;
  /** Retell's key that signs its custom-function requests (X-Retell-Signature); null: not verified. */
  retell_secret: Generated<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface FacilitiesTable {
  id: string;
  clinic_id: string;
  name: string;
  street: string | null;
  city: string | null;
  province: string | null;
  zip_code: string | null;
  phone: string | null;
  email: string | null;
  is_main_location: Generated<boolean>;
  avg_appointment_minutes: Generated<number>;
  working_schedule: NullableJson;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface DoctorsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  first_name: string;
  last_name: string;
  specialty: string | null;
  /** How the clinic names the doctor to patients ("Dott.ssa Bianchi"); null: "Dott. <first> <last>". */
  display_name: ColumnType<string | null, string | null | undefined, string | null>;
  active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChairsTable {
  id: string;
  clinic_id: string;
  facility_id: string;
  name: string;
  active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface StaffProfilesTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  first_name: string;
  last_name: string;
  email: string | null;
  role: Generated<string>;
  active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  clinic_id: string;
  name: string;
  kind: 'live' | 'test';
  token_hash: string;
  token_prefix: string;
  scopes: string[];
  facility_ids: string[] | null;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  replaced_by: string | null;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
  agent: Generated<'none' | 'chat_bot' | 'voice_agent'>;
}

export interface Address {
  street: string | null;
  city: string | null;
  zip: string | null;
  country: string | null;
}

export interface PatientsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  gender: string | null;
  tax_code: string | null;
  address: NullableJson<Address>;
  referral_source: string | null;
  allergies: string[] | null;
  medications: string[] | null;
  conditions: string[] | null;
  notes: string | null;
  is_active: Generated<boolean>;
  archived_at: NullableTimestamp;
  erased_at: NullableTimestamp;
  /** Search columns kept by the people module (migration 0010). */
  first_norm: string | null;
  last_norm: string | null;
  full_norm: string | null;
  phon_first: string | null;
  phon_last: string | null;
  tax_code_norm: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface LeadsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  first_name: string;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  source: string | null;
  source_detail: string | null;
  status: Generated<string>;
  assigned_to: string | null;
  estimated_value: number | null;
  notes: string | null;
  next_follow_up_at: NullableTimestamp;
  last_contacted_at: NullableTimestamp;
  lost_reason: string | null;
  converted_patient_id: string | null;
  converted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface AppointmentsTable {
  id: string;
  clinic_id: string;
  patient_id: string;
  facility_id: string | null;
  doctor_id: string | null;
  chair_id: string | null;
  calendar_id: string | null;
  start_at: ColumnType<Date, Date | string, Date | string>;
  end_at: ColumnType<Date, Date | string, Date | string>;
  status: string;
  type: string | null;
  category: string | null;
  title: string | null;
  reason: string | null;
  notes: string | null;
  clinical_notes: string | null;
  completion_notes: string | null;
  origin: string;
  treatment_plan_id: string | null;
  /** When it first became `confirmed` (set by the database: migration 0128). */
  confirmed_at: Generated<Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface EventsTable {
  id: string;
  clinic_id: string;
  type: string;
  facility_id: string | null;
  scope: string;
  livemode: boolean;
  api_version: Generated<string>;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

/** One read (spec 1.6); what it returned is the list `resources_id` names. */
export interface AccessLogTable {
  id: string;
  clinic_id: string;
  api_key_id: string | null;
  request_id: string | null;
  resources_id: string;
  fields: string[];
  at: Timestamp;
}

/** A list of resources some read returned, stored once (id derived from the content). */
export interface AccessLogResourcesTable {
  id: string;
  clinic_id: string;
  resource_type: string;
  resource_ids: string[];
}

/** The view `access_log_entries`: each read with the type and ids of what it returned. */
export interface AccessLogEntriesView {
  id: string;
  clinic_id: string;
  api_key_id: string | null;
  request_id: string | null;
  resource_type: string;
  resource_ids: string[];
  fields: string[];
  at: Date;
}

export interface IdempotencyKeysTable {
  clinic_id: string;
  idempotency_key: string;
  api_key_id: string;
  operation: string;
  body_hash: string;
  state: 'in_progress' | 'committed' | 'completed';
  locked_until: ColumnType<Date, Date | string, Date | string>;
  status_code: number | null;
  response_body: string | null;
  response_headers: NullableJson<Record<string, string>>;
  response_not_stored: Generated<boolean>;
  created_at: Timestamp;
}

export interface CoreTables {
  server_settings: ServerSettingsTable;
  organizations: OrganizationsTable;
  clinics: ClinicsTable;
  facilities: FacilitiesTable;
  doctors: DoctorsTable;
  chairs: ChairsTable;
  staff_profiles: StaffProfilesTable;
  api_keys: ApiKeysTable;
  patients: PatientsTable;
  leads: LeadsTable;
  appointments: AppointmentsTable;
  events: EventsTable;
  access_log: AccessLogTable;
  access_log_resources: AccessLogResourcesTable;
  access_log_entries: AccessLogEntriesView;
  idempotency_keys: IdempotencyKeysTable;
}
