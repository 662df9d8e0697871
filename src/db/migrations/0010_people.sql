-- People module: search columns on patients, lead activities, phone calls.

-- Normalized copies of the patient's name and tax code, kept by the service on every write
-- (src/modules/patients/normalize.ts: lower case, accents and punctuation removed, single
-- spaces), and the Double Metaphone keys of first and last name (fuzzystrmatch). They feed
-- the trigram index and the phonetic candidate search of GET /patients/search.
ALTER TABLE patients ADD COLUMN first_norm text;
ALTER TABLE patients ADD COLUMN last_norm text;
ALTER TABLE patients ADD COLUMN full_norm text;
ALTER TABLE patients ADD COLUMN phon_first text;
ALTER TABLE patients ADD COLUMN phon_last text;
ALTER TABLE patients ADD COLUMN tax_code_norm text;

CREATE INDEX patients_full_norm_trgm_idx ON patients USING gin (full_norm gin_trgm_ops);
CREATE INDEX patients_clinic_phon_idx ON patients (clinic_id, phon_last, phon_first);
CREATE INDEX patients_clinic_phon_first_idx ON patients (clinic_id, phon_first);
CREATE INDEX patients_clinic_tax_code_idx ON patients (clinic_id, tax_code_norm);

-- The clinic's vocabulary of normalized first and last names (each whole value, e.g.
-- "maria grazia", "de luca") with its Double Metaphone key. Small (thousands of rows for
-- a large clinic); a name search finds the names close to each query part through
-- patient_name_keys and the Double Metaphone key, then the patients by exact first and
-- last name through the btree indexes below.
CREATE TABLE patient_name_terms (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  term text NOT NULL,
  phon text,
  PRIMARY KEY (clinic_id, term)
);
CREATE INDEX patient_name_terms_phon_idx ON patient_name_terms (clinic_id, phon);
-- Deletion neighbourhood of each name (the name and every form with one letter removed):
-- two names within one edit or one transposition share a key, so a misspelled part finds
-- its close names through this btree instead of comparing it to the whole vocabulary.
CREATE TABLE patient_name_keys (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  key text NOT NULL,
  term text NOT NULL,
  PRIMARY KEY (clinic_id, key, term)
);
CREATE INDEX patients_clinic_first_last_idx ON patients (clinic_id, first_norm, last_norm);
CREATE INDEX patients_clinic_last_first_idx ON patients (clinic_id, last_norm, first_norm);

CREATE TABLE lead_activities (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  lead_id uuid NOT NULL REFERENCES leads(id),
  kind text NOT NULL,
  body text NOT NULL,
  at timestamptz(3) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX lead_activities_lead_idx ON lead_activities (lead_id, at, id);

CREATE TABLE calls (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  external_call_id text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  from_number text NOT NULL,
  to_number text NOT NULL,
  started_at timestamptz(3),
  duration_seconds integer,
  outcome text,
  summary text,
  recording_url text,
  transcript text,
  patient_id uuid REFERENCES patients(id),
  lead_id uuid REFERENCES leads(id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
-- The idempotency of POST /calls: one row per provider call id in a clinic.
CREATE UNIQUE INDEX calls_clinic_external_idx ON calls (clinic_id, external_call_id);
CREATE INDEX calls_clinic_created_idx ON calls (clinic_id, created_at, id);
CREATE INDEX calls_patient_idx ON calls (patient_id) WHERE patient_id IS NOT NULL;
CREATE INDEX calls_lead_idx ON calls (lead_id) WHERE lead_id IS NOT NULL;
