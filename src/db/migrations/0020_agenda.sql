-- Agenda module: appointment overlap rules, calendars, chat, tasks, billing.

-- A doctor or a chair is never in two live appointments at once. Statuses that free the
-- time (cancelled, no_show, postponed, draft) do not block. This constraint is what makes
-- exactly one of several parallel bookings of one slot win, on both engines.
ALTER TABLE appointments ADD CONSTRAINT appointments_doctor_overlap
  EXCLUDE USING gist (doctor_id WITH =, tstzrange(start_at, end_at, '[)') WITH &&)
  WHERE (doctor_id IS NOT NULL AND status NOT IN ('cancelled', 'no_show', 'postponed', 'draft'));
ALTER TABLE appointments ADD CONSTRAINT appointments_chair_overlap
  EXCLUDE USING gist (chair_id WITH =, tstzrange(start_at, end_at, '[)') WITH &&)
  WHERE (chair_id IS NOT NULL AND status NOT IN ('cancelled', 'no_show', 'postponed', 'draft'));
CREATE INDEX appointments_clinic_facility_idx ON appointments (clinic_id, facility_id, start_at);
CREATE INDEX appointments_clinic_chair_idx ON appointments (clinic_id, chair_id, start_at);

CREATE TABLE calendars (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid NOT NULL REFERENCES facilities(id),
  name text NOT NULL,
  slot_minutes integer NOT NULL CHECK (slot_minutes BETWEEN 5 AND 480),
  -- { "mon": [{ "open": "09:00", "close": "13:00" }], ... } in the clinic's timezone.
  working_hours jsonb NOT NULL,
  doctor_ids uuid[] NOT NULL,
  chair_ids uuid[] NOT NULL DEFAULT '{}',
  min_notice_minutes integer NOT NULL DEFAULT 0,
  horizon_days integer NOT NULL DEFAULT 60,
  cancellation_notice_minutes integer NOT NULL DEFAULT 0,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX calendars_clinic_idx ON calendars (clinic_id);

CREATE TABLE conversations (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid REFERENCES patients(id),
  lead_id uuid REFERENCES leads(id),
  phone text,
  bot_state text NOT NULL DEFAULT 'attivo' CHECK (bot_state IN ('attivo', 'in_pausa', 'allo_studio')),
  bot_paused_until timestamptz(3),
  opted_out boolean NOT NULL DEFAULT false,
  last_inbound_at timestamptz(3),
  last_outbound_at timestamptz(3),
  last_activity_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX conversations_clinic_idx ON conversations (clinic_id, updated_at, id);

CREATE TABLE chat_messages (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  conversation_id uuid NOT NULL REFERENCES conversations(id),
  direction text NOT NULL CHECK (direction IN ('in', 'out')),
  author text NOT NULL,
  type text NOT NULL,
  body text,
  occurred_at timestamptz(3) NOT NULL,
  media_mime_type text,
  media_duration_seconds integer,
  transcription_status text NOT NULL DEFAULT 'assente',
  transcription text,
  -- Arrival at the service: the order of the message list.
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX chat_messages_conversation_idx ON chat_messages (conversation_id, created_at, id);

CREATE TABLE tasks (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid REFERENCES patients(id),
  title text NOT NULL,
  status text NOT NULL DEFAULT 'todo' CHECK (status IN ('todo', 'in_progress', 'done')),
  due_date timestamptz(3),
  assignee_id uuid REFERENCES staff_profiles(id),
  type text NOT NULL DEFAULT 'manual',
  completed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX tasks_clinic_updated_idx ON tasks (clinic_id, updated_at, id);

CREATE TABLE treatment_plans (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  title text,
  total_amount numeric(14, 2) NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'presented', 'accepted', 'rejected')),
  presented_at timestamptz(3),
  decided_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX treatment_plans_clinic_idx ON treatment_plans (clinic_id, updated_at, id);

CREATE TABLE payment_plans (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  treatment_plan_id uuid REFERENCES treatment_plans(id),
  type text NOT NULL,
  total_amount numeric(14, 2) NOT NULL,
  installment_count integer NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX payment_plans_clinic_updated_idx ON payment_plans (clinic_id, updated_at, id);
CREATE INDEX payment_plans_clinic_patient_idx ON payment_plans (clinic_id, patient_id);

CREATE TABLE installments (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  payment_plan_id uuid NOT NULL REFERENCES payment_plans(id),
  seq integer NOT NULL,
  amount numeric(14, 2) NOT NULL,
  amount_paid numeric(14, 2) NOT NULL DEFAULT 0,
  due_date date NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'partially_paid', 'paid')),
  paid_at timestamptz(3),
  payment_method text,
  -- Set once, by the job that records installment.overdue.
  overdue_notified_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (payment_plan_id, seq)
);
CREATE INDEX installments_overdue_idx ON installments (due_date) WHERE status <> 'paid' AND overdue_notified_at IS NULL;

CREATE TABLE invoices (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  number text NOT NULL,
  total_amount numeric(14, 2) NOT NULL,
  amount_paid numeric(14, 2) NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'issued' CHECK (status IN ('issued', 'paid')),
  issued_at timestamptz(3) NOT NULL DEFAULT now(),
  paid_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (clinic_id, number)
);

CREATE TABLE payments (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  invoice_id uuid REFERENCES invoices(id),
  installment_id uuid REFERENCES installments(id),
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  method text NOT NULL,
  received_at timestamptz(3) NOT NULL DEFAULT now(),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX payments_clinic_idx ON payments (clinic_id, created_at);
