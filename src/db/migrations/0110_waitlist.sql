-- The waitlist (src/modules/waitlist/README.md): people waiting for a calendar's
-- slot, and the offers of freed slots made to them. An offer keeps its slot like a hold: every
-- reader of busy time (busyTimesQuery) counts a live offer, so nobody else can book or hold it.

CREATE TABLE waitlist_entries (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  -- The calendar's facility: what a key limited to facilities sees.
  facility_id uuid NOT NULL REFERENCES facilities(id),
  calendar_id uuid NOT NULL REFERENCES calendars(id),
  doctor_id uuid REFERENCES doctors(id),
  patient_id uuid REFERENCES patients(id),
  lead_id uuid REFERENCES leads(id),
  earliest timestamptz(3) NOT NULL,
  latest timestamptz(3) NOT NULL,
  days text[] NOT NULL DEFAULT '{}',
  parts_of_day text[] NOT NULL DEFAULT '{}',
  note text,
  channel text NOT NULL,
  -- open, booked (an offer was accepted), removed (DELETE)
  status text NOT NULL DEFAULT 'open',
  appointment_id uuid REFERENCES appointments(id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((patient_id IS NULL) <> (lead_id IS NULL)),
  CHECK (latest > earliest)
);
-- One open entry per person and calendar.
CREATE UNIQUE INDEX waitlist_entries_open_person_idx ON waitlist_entries (clinic_id, calendar_id, (coalesce(patient_id, lead_id))) WHERE status = 'open';
-- The matching read of a freed slot: a calendar's open entries in order of creation.
CREATE INDEX waitlist_entries_match_idx ON waitlist_entries (clinic_id, calendar_id, created_at, id) WHERE status = 'open';
CREATE INDEX waitlist_entries_list_idx ON waitlist_entries (clinic_id, created_at, id);

CREATE TABLE waitlist_offers (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid NOT NULL REFERENCES facilities(id),
  calendar_id uuid NOT NULL REFERENCES calendars(id),
  entry_id uuid NOT NULL REFERENCES waitlist_entries(id),
  doctor_id uuid REFERENCES doctors(id),
  chair_id uuid REFERENCES chairs(id),
  start_at timestamptz(3) NOT NULL,
  end_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  -- offered, accepted, declined, expired, withdrawn (the entry was removed)
  status text NOT NULL DEFAULT 'offered',
  appointment_id uuid REFERENCES appointments(id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK (end_at > start_at)
);
-- One live offer per entry: two slots freed at once never go to one entry (the second insert
-- waits for the first's commit, then does nothing and the next entry is tried).
CREATE UNIQUE INDEX waitlist_offers_entry_live_idx ON waitlist_offers (clinic_id, entry_id) WHERE status = 'offered';
-- Busy time: the live offers of a clinic by time (busyTimesQuery).
CREATE INDEX waitlist_offers_time_idx ON waitlist_offers (clinic_id, start_at) WHERE status = 'offered';
CREATE INDEX waitlist_offers_list_idx ON waitlist_offers (clinic_id, created_at, id);
-- The expiry job's read: live offers past their expiry.
CREATE INDEX waitlist_offers_expiry_idx ON waitlist_offers (clinic_id, expires_at) WHERE status = 'offered';

-- The clinic's waitlist setting: how long an offer keeps its slot (default 30 minutes).
CREATE TABLE waitlist_settings (
  clinic_id uuid PRIMARY KEY REFERENCES clinics(id),
  offer_minutes integer NOT NULL DEFAULT 30 CHECK (offer_minutes BETWEEN 5 AND 1440),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
