-- Documents: a patient's files. The row holds the metadata; the bytes live in the
-- storage (DOCUMENT_STORAGE: fs or s3) under storage_key. A row is `available` only after its
-- bytes were checked and stored under storage_key (src/modules/documents/README.md).
CREATE TABLE documents (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  facility_id uuid REFERENCES facilities(id),
  patient_id uuid NOT NULL REFERENCES patients(id),
  category text NOT NULL CHECK (category IN ('xray', 'photo', 'consent', 'quote', 'invoice', 'referral', 'lab', 'id_document', 'other')),
  -- Clinical data (reading it is access-logged); null once the patient is erased.
  title text,
  filename text,
  content_type text NOT NULL,
  size_bytes bigint NOT NULL,
  sha256 text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending_upload', 'pending_scan', 'available', 'rejected')),
  rejected_reason text CHECK (rejected_reason IN ('size_mismatch', 'checksum_mismatch', 'type_not_allowed', 'malware', 'upload_expired')),
  scan_result text NOT NULL DEFAULT 'not_scanned' CHECK (scan_result IN ('not_scanned', 'pending', 'clean', 'infected')),
  scan_signature text,
  scan_attempts integer NOT NULL DEFAULT 0,
  scanned_at timestamptz(3),
  appointment_id uuid REFERENCES appointments(id),
  quote_id uuid REFERENCES treatment_plans(id),
  invoice_id uuid REFERENCES invoices(id),
  chat_message_id uuid REFERENCES chat_messages(id),
  origin text NOT NULL CHECK (origin IN ('api', 'chat_bot', 'voice_agent', 'back_office')),
  -- Where the final bytes are (documents/<clinic>/<id>); the upload lands on upload_key first.
  storage_key text NOT NULL,
  upload_key text,
  upload_expires_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  archived_at timestamptz(3),
  -- When the bytes were deleted (retention after archiving, patient erased, rejection).
  purged_at timestamptz(3),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX documents_clinic_updated_idx ON documents (clinic_id, updated_at, id);
CREATE INDEX documents_clinic_patient_idx ON documents (clinic_id, patient_id);
-- The jobs' work lists: pending scans, expired uploads, archived documents awaiting purge.
CREATE INDEX documents_pending_idx ON documents (clinic_id, status) WHERE status IN ('pending_upload', 'pending_scan');
CREATE INDEX documents_purge_idx ON documents (clinic_id, archived_at) WHERE archived_at IS NOT NULL AND purged_at IS NULL;

-- The single use of a signed link of the fs driver (its nonce), kept until the link expires.
-- `done` false: an upload in progress (a failed upload frees its link again).
CREATE TABLE document_link_uses (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  nonce text NOT NULL,
  done boolean NOT NULL DEFAULT false,
  expires_at timestamptz(3) NOT NULL,
  PRIMARY KEY (clinic_id, nonce)
);
CREATE INDEX document_link_uses_expiry_idx ON document_link_uses (expires_at);

-- A chat message with media points at the document that holds its file.
ALTER TABLE chat_messages ADD COLUMN document_id uuid REFERENCES documents(id);
