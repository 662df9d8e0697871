-- Core schema: tenancy, keys, the people and agenda rows every module links to,
-- the event outbox, the access log and idempotency records.
-- Timestamps are timestamptz(3): millisecond precision, the same as a JavaScript Date,
-- so keyset cursors round-trip exactly.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE server_settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  suspended_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE clinics (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  plan_active boolean NOT NULL DEFAULT true,
  patient_limit integer CHECK (patient_limit IS NULL OR patient_limit >= 0),
  ai_enabled boolean NOT NULL DEFAULT true,
  timezone text NOT NULL DEFAULT 'Europe/Rome',
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX clinics_organization_idx ON clinics (organization_id);

CREATE TABLE facilities (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  name text NOT NULL,
  street text,
  city text,
  province text,
  zip_code text,
  phone text,
  email text,
  is_main_location boolean NOT NULL DEFAULT false,
  avg_appointment_minutes integer NOT NULL DEFAULT 30,
  working_schedule jsonb,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX facilities_clinic_idx ON facilities (clinic_id);

CREATE TABLE doctors (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  first_name text NOT NULL,
  last_name text NOT NULL,
  specialty text,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX doctors_clinic_idx ON doctors (clinic_id);

CREATE TABLE chairs (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid NOT NULL REFERENCES facilities(id),
  name text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX chairs_clinic_idx ON chairs (clinic_id);

-- People who work at the clinic: task assignees, lead owners.
CREATE TABLE staff_profiles (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text,
  role text NOT NULL DEFAULT 'staff',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX staff_profiles_clinic_idx ON staff_profiles (clinic_id);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('live', 'test')),
  -- SHA-256 of the whole token, hex; the token itself is never stored.
  token_hash text NOT NULL UNIQUE,
  -- First characters of the token, to recognise a key in lists.
  token_prefix text NOT NULL,
  scopes text[] NOT NULL,
  -- NULL: every facility of the clinic.
  facility_ids uuid[],
  expires_at timestamptz(3),
  revoked_at timestamptz(3),
  replaced_by uuid REFERENCES api_keys(id),
  last_used_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_clinic_idx ON api_keys (clinic_id);

CREATE TABLE patients (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  first_name text,
  last_name text,
  email text,
  phone text,
  date_of_birth date,
  gender text,
  tax_code text,
  address jsonb,
  referral_source text,
  allergies text[],
  medications text[],
  conditions text[],
  notes text,
  is_active boolean NOT NULL DEFAULT true,
  archived_at timestamptz(3),
  erased_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX patients_clinic_updated_idx ON patients (clinic_id, updated_at, id);
CREATE INDEX patients_clinic_phone_idx ON patients (clinic_id, phone);
CREATE INDEX patients_clinic_email_idx ON patients (clinic_id, lower(email));

CREATE TABLE leads (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  first_name text NOT NULL,
  last_name text,
  email text,
  phone text,
  source text,
  source_detail text,
  status text NOT NULL DEFAULT 'new',
  assigned_to uuid REFERENCES staff_profiles(id),
  estimated_value numeric(14, 2),
  notes text,
  next_follow_up_at timestamptz(3),
  last_contacted_at timestamptz(3),
  lost_reason text,
  converted_patient_id uuid REFERENCES patients(id),
  converted_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX leads_clinic_updated_idx ON leads (clinic_id, updated_at, id);
CREATE INDEX leads_clinic_phone_idx ON leads (clinic_id, phone);
CREATE INDEX leads_clinic_email_idx ON leads (clinic_id, lower(email));

CREATE TABLE appointments (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  facility_id uuid REFERENCES facilities(id),
  doctor_id uuid REFERENCES doctors(id),
  chair_id uuid REFERENCES chairs(id),
  calendar_id uuid,
  start_at timestamptz(3) NOT NULL,
  end_at timestamptz(3) NOT NULL,
  status text NOT NULL,
  type text,
  category text,
  title text,
  reason text,
  notes text,
  clinical_notes text,
  completion_notes text,
  origin text NOT NULL,
  treatment_plan_id uuid,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1,
  CHECK (end_at > start_at)
);
CREATE INDEX appointments_clinic_updated_idx ON appointments (clinic_id, updated_at, id);
CREATE INDEX appointments_clinic_start_idx ON appointments (clinic_id, start_at, id);
CREATE INDEX appointments_clinic_patient_idx ON appointments (clinic_id, patient_id, start_at);
CREATE INDEX appointments_clinic_doctor_idx ON appointments (clinic_id, doctor_id, start_at);

-- The outbox: an event commits with its change or not at all.
CREATE TABLE events (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  type text NOT NULL,
  facility_id uuid,
  -- The scope a key needs to see the event (for events.skipped: the scope of data.type).
  scope text NOT NULL,
  livemode boolean NOT NULL,
  api_version text NOT NULL DEFAULT 'v1',
  data jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX events_clinic_created_idx ON events (clinic_id, created_at, id);
CREATE INDEX events_clinic_type_created_idx ON events (clinic_id, type, created_at, id);
CREATE INDEX events_created_idx ON events (created_at);

-- Reads of free text and clinical data (spec 1.6, 2.1): one row per read request.
CREATE TABLE access_log (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  api_key_id uuid REFERENCES api_keys(id),
  request_id text,
  resource_type text NOT NULL,
  resource_ids uuid[] NOT NULL,
  fields text[] NOT NULL,
  at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX access_log_clinic_at_idx ON access_log (clinic_id, at, id);
CREATE INDEX access_log_resource_idx ON access_log USING gin (resource_ids);

CREATE TABLE idempotency_keys (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  idempotency_key text NOT NULL,
  api_key_id uuid NOT NULL,
  operation text NOT NULL,
  body_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  -- While in progress: when another request may take the key over (its first holder died).
  locked_until timestamptz(3) NOT NULL,
  status_code integer,
  response_body text,
  response_headers jsonb,
  -- The first response held a secret shown once: it is not kept, and a replay is refused.
  response_not_stored boolean NOT NULL DEFAULT false,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
