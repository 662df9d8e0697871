-- The recall worklist (src/modules/recalls/README.md): the clinic's recall rules, each
-- patient's last qualifying visit and when it is due (refreshed by a job and when the rules
-- change, corrected at read time), the state of contacting them, and the attempts.

CREATE TABLE recall_rules (
  clinic_id uuid PRIMARY KEY REFERENCES clinics(id),
  categories text[] NOT NULL DEFAULT '{}',
  types text[] NOT NULL DEFAULT '{}',
  interval_months integer NOT NULL DEFAULT 6 CHECK (interval_months BETWEEN 1 AND 60),
  max_attempts_per_week integer NOT NULL DEFAULT 3 CHECK (max_attempts_per_week BETWEEN 1 AND 21),
  -- Local times of the clinic ('HH:MM'): no automatic contact from quiet_start to quiet_end.
  quiet_start text NOT NULL DEFAULT '20:00',
  quiet_end text NOT NULL DEFAULT '09:00',
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Each patient's last completed qualifying visit and when the next one is due.
CREATE TABLE recall_worklist (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  last_visit_at timestamptz(3) NOT NULL,
  last_category text,
  last_type text,
  due_at timestamptz(3) NOT NULL,
  refreshed_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_id, patient_id)
);
-- The list's order: most overdue first.
CREATE INDEX recall_worklist_due_idx ON recall_worklist (clinic_id, due_at, patient_id);

-- How contacting a patient stands: snoozed, opted out, a phone known to be wrong, attempts so far.
CREATE TABLE recall_contacts (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  snoozed_until timestamptz(3),
  opted_out boolean NOT NULL DEFAULT false,
  wrong_phone text,
  attempts integer NOT NULL DEFAULT 0,
  last_attempt_at timestamptz(3),
  last_outcome text,
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_id, patient_id)
);

CREATE TABLE recall_attempts (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  channel text NOT NULL,
  outcome text NOT NULL,
  appointment_id uuid REFERENCES appointments(id),
  callback_at timestamptz(3),
  task_id uuid REFERENCES tasks(id),
  external_call_id text,
  note text,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
-- Idempotent per call: one attempt per externalCallId of the clinic.
CREATE UNIQUE INDEX recall_attempts_call_idx ON recall_attempts (clinic_id, external_call_id) WHERE external_call_id IS NOT NULL;
CREATE INDEX recall_attempts_patient_idx ON recall_attempts (clinic_id, patient_id, created_at, id);

-- The list leaves out patients who wrote STOP in chat: found per patient without reading every conversation.
CREATE INDEX conversations_opted_out_idx ON conversations (clinic_id, patient_id) WHERE opted_out;
