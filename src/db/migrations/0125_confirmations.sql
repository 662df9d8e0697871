-- The confirmation loop (src/modules/confirmations/README.md): the clinic's rules for asking
-- patients whether they are coming, the attempts and their outcomes, where each appointment's
-- asking stands, a patient's refusal of automatic contact or wrong phone, and the marks of the
-- `appointment.confirmation_due` events already recorded (one per appointment and rule step).

CREATE TABLE confirmation_rules (
  clinic_id uuid PRIMARY KEY REFERENCES clinics(id),
  -- When to ask: [{"hoursBefore": 48}, {"daysBefore": 1, "at": "18:00"}] (at: the clinic's local time).
  steps jsonb NOT NULL,
  -- Empty: every calendar (and appointments entered without one) / every category.
  calendar_ids uuid[] NOT NULL DEFAULT '{}',
  categories text[] NOT NULL DEFAULT '{}',
  channels text[] NOT NULL,
  max_attempts integer NOT NULL CHECK (max_attempts BETWEEN 1 AND 10),
  retry_after_minutes integer NOT NULL CHECK (retry_after_minutes BETWEEN 15 AND 1440),
  quiet_start text NOT NULL,
  quiet_end text NOT NULL,
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Where asking one appointment stands: attempts so far, the last outcome, and whether the
-- automatic asking is over for it (a reschedule asked for: the clinic's task now).
CREATE TABLE appointment_confirmations (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  appointment_id uuid NOT NULL REFERENCES appointments(id),
  attempts integer NOT NULL DEFAULT 0,
  last_attempt_at timestamptz(3),
  last_outcome text,
  closed boolean NOT NULL DEFAULT false,
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_id, appointment_id)
);

-- A patient who refused automatic contact, or whose phone was answered by someone else.
CREATE TABLE confirmation_contacts (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  opted_out boolean NOT NULL DEFAULT false,
  wrong_phone text,
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_id, patient_id)
);

CREATE TABLE confirmation_attempts (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  appointment_id uuid NOT NULL REFERENCES appointments(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  channel text NOT NULL,
  outcome text NOT NULL,
  task_id uuid REFERENCES tasks(id),
  external_call_id text,
  note text,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
-- Idempotent per call or message: one attempt per externalCallId of the clinic.
CREATE UNIQUE INDEX confirmation_attempts_call_idx ON confirmation_attempts (clinic_id, external_call_id) WHERE external_call_id IS NOT NULL;
CREATE INDEX confirmation_attempts_appointment_idx ON confirmation_attempts (clinic_id, appointment_id, created_at, id);

-- `appointment.confirmation_due` once per appointment and rule step: the mark and the event
-- are written in one transaction, and the key refuses a second mark.
CREATE TABLE confirmation_due_marks (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  appointment_id uuid NOT NULL REFERENCES appointments(id),
  step integer NOT NULL,
  due_at timestamptz(3) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_id, appointment_id, step)
);

-- The worklist and the job read only the clinic's scheduled appointments ahead, soonest first:
-- a partial index holds just those (a month ahead is a few thousand rows of a large clinic,
-- not its whole history).
CREATE INDEX appointments_to_confirm_idx ON appointments (clinic_id, start_at, id) WHERE status = 'scheduled';
