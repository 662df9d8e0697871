-- For agents: the Clinic lists, calendar fields an agent can reason with, slot holds and
-- handoffs of the voice agent, and the change feed of clinics (ai_enabled at once everywhere).

-- A calendar is the bookable service: what it is, who may book it, whom it takes.
ALTER TABLE calendars ADD COLUMN description text;
ALTER TABLE calendars ADD COLUMN keywords text[] NOT NULL DEFAULT '{}';
ALTER TABLE calendars ADD COLUMN bookable_by text[] NOT NULL DEFAULT '{api,bot,voice}'
  CHECK (bookable_by <@ ARRAY['api', 'bot', 'voice']::text[]);
ALTER TABLE calendars ADD COLUMN takes_new_patients boolean NOT NULL DEFAULT true;
ALTER TABLE calendars ADD COLUMN appointment_type text
  CHECK (appointment_type IN ('checkup', 'treatment', 'consultation', 'emergency', 'other'));
ALTER TABLE calendars ADD COLUMN appointment_category text
  CHECK (appointment_category IN ('recall', 'treatment_plan', 'first_visit', 'case_study', 'standard'));

-- The lists of the Clinic area sync by last modification (then id), like every list.
ALTER TABLE doctors ADD COLUMN display_name text;
CREATE INDEX calendars_clinic_updated_idx ON calendars (clinic_id, updated_at, id);
CREATE INDEX doctors_clinic_updated_idx ON doctors (clinic_id, updated_at, id);
CREATE INDEX chairs_clinic_updated_idx ON chairs (clinic_id, updated_at, id);
CREATE INDEX staff_profiles_clinic_updated_idx ON staff_profiles (clinic_id, updated_at, id);
CREATE INDEX facilities_clinic_updated_idx ON facilities (clinic_id, updated_at, id);
CREATE INDEX facilities_clinic_phone_idx ON facilities (clinic_id, phone);

-- Switching a clinic's AI off must stop its agent keys at once in every process: the key
-- cache (src/modules/auth/authenticate.ts) drops a clinic's keys when this notification
-- arrives. The clinics table has no clinic_id column: its own id is the clinic.
CREATE FUNCTION dcm_note_clinic_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('dcm_changes', 'clinics:' || NEW.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER clinics_change_feed AFTER UPDATE ON clinics
  FOR EACH ROW EXECUTE FUNCTION dcm_note_clinic_change();
CREATE TRIGGER clinics_change_feed_truncate AFTER TRUNCATE ON clinics
  FOR EACH STATEMENT EXECUTE FUNCTION dcm_note_truncate();

-- A slot held for a caller while the agent confirms (src/modules/holds/README.md). A hold
-- blocks its doctor's and chair's time while it is live (not expired, not used by a booking).
-- Writers of holds and bookings take the schedule locks of 0051 before checking, so of a hold
-- and a booking racing for one time exactly one wins.
CREATE TABLE slot_holds (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid NOT NULL REFERENCES facilities(id),
  calendar_id uuid NOT NULL REFERENCES calendars(id),
  api_key_id uuid NOT NULL REFERENCES api_keys(id),
  holder_ref text NOT NULL,
  doctor_id uuid REFERENCES doctors(id),
  chair_id uuid REFERENCES chairs(id),
  start_at timestamptz(3) NOT NULL,
  end_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  -- Set when a booking used the hold: it then holds nothing (the appointment does).
  appointment_id uuid REFERENCES appointments(id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK (end_at > start_at)
);
CREATE UNIQUE INDEX slot_holds_holder_idx ON slot_holds (clinic_id, api_key_id, holder_ref);
CREATE INDEX slot_holds_clinic_time_idx ON slot_holds (clinic_id, start_at) WHERE appointment_id IS NULL;
CREATE INDEX slot_holds_expires_idx ON slot_holds (expires_at);

-- An agent giving a call up to a person: one per call (call_ref) and key, answered again on a retry.
CREATE TABLE voice_handoffs (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  api_key_id uuid REFERENCES api_keys(id),
  call_ref text NOT NULL,
  reason text NOT NULL,
  summary text,
  patient_id uuid REFERENCES patients(id),
  lead_id uuid REFERENCES leads(id),
  outcome text NOT NULL CHECK (outcome IN ('transfer', 'callback')),
  transfer_to text,
  task_id uuid REFERENCES tasks(id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (clinic_id, api_key_id, call_ref)
);
