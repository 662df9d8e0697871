-- Billing on /v1: quotes (treatment plans) with items, invoices with lines, payments with a provider
-- reference, on /v1. Amounts stay numeric(14, 2) euro (exact in the database); the code adds
-- and compares them as integer cents (src/modules/billing/money.ts).

-- The clinic requires a signed document to accept a quote (403 signature_required without one).
ALTER TABLE clinics ADD COLUMN quotes_require_signature boolean NOT NULL DEFAULT false;

-- Per clinic, per kind, per year: the last number given (quotes: P-2026-0001).
CREATE TABLE billing_counters (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  kind text NOT NULL,
  year integer NOT NULL,
  last integer NOT NULL,
  PRIMARY KEY (clinic_id, kind, year)
);

ALTER TABLE treatment_plans DROP CONSTRAINT treatment_plans_status_check;
ALTER TABLE treatment_plans ADD CONSTRAINT treatment_plans_status_check
  CHECK (status IN ('draft', 'presented', 'accepted', 'rejected', 'cancelled'));
ALTER TABLE treatment_plans
  ADD COLUMN number text,
  ADD COLUMN doctor_id uuid REFERENCES doctors(id),
  ADD COLUMN valid_until date,
  ADD COLUMN subtotal_amount numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN discount_amount numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN notes text,
  ADD COLUMN acceptance_channel text CHECK (acceptance_channel IN ('chat', 'voice', 'portal', 'in_person', 'email')),
  -- A document; no foreign key: the documents table comes in a later migration (0090).
  ADD COLUMN signed_document_id uuid,
  ADD COLUMN rejection_reason text CHECK (rejection_reason IN ('price', 'timing', 'second_opinion', 'not_needed', 'other')),
  ADD COLUMN rejection_note text,
  ADD COLUMN cancelled_at timestamptz(3);
UPDATE treatment_plans SET subtotal_amount = total_amount, number = 'P-' || to_char(created_at, 'YYYY') || '-' || substr(id::text, 1, 8) WHERE number IS NULL;
ALTER TABLE treatment_plans ALTER COLUMN number SET NOT NULL;
CREATE UNIQUE INDEX treatment_plans_clinic_number_idx ON treatment_plans (clinic_id, number);
CREATE INDEX treatment_plans_clinic_patient_idx ON treatment_plans (clinic_id, patient_id);

CREATE TABLE treatment_plan_items (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  treatment_plan_id uuid NOT NULL REFERENCES treatment_plans(id),
  position integer NOT NULL,
  phase integer NOT NULL DEFAULT 1,
  procedure_code text,
  description text NOT NULL,
  teeth integer[] NOT NULL DEFAULT '{}',
  surfaces text[] NOT NULL DEFAULT '{}',
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_amount numeric(14, 2) NOT NULL CHECK (unit_amount >= 0),
  discount_amount numeric(14, 2) NOT NULL DEFAULT 0 CHECK (discount_amount >= 0),
  total_amount numeric(14, 2) NOT NULL CHECK (total_amount >= 0),
  status text NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'scheduled', 'completed', 'cancelled')),
  appointment_id uuid REFERENCES appointments(id),
  UNIQUE (treatment_plan_id, position)
);
CREATE INDEX treatment_plan_items_clinic_plan_idx ON treatment_plan_items (clinic_id, treatment_plan_id);

ALTER TABLE invoices DROP CONSTRAINT invoices_status_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_status_check CHECK (status IN ('issued', 'paid', 'void'));
ALTER TABLE invoices
  ADD COLUMN treatment_plan_id uuid REFERENCES treatment_plans(id),
  ADD COLUMN subtotal_amount numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN discount_amount numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN tax_amount numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN stamp_duty_amount numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN due_date date,
  ADD COLUMN voided_at timestamptz(3);
UPDATE invoices SET subtotal_amount = total_amount;
CREATE INDEX invoices_clinic_updated_idx ON invoices (clinic_id, updated_at, id);
CREATE INDEX invoices_clinic_patient_idx ON invoices (clinic_id, patient_id);

CREATE TABLE invoice_lines (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  invoice_id uuid NOT NULL REFERENCES invoices(id),
  position integer NOT NULL,
  description text NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_amount numeric(14, 2) NOT NULL,
  discount_amount numeric(14, 2) NOT NULL DEFAULT 0,
  -- Percent, e.g. 22.00; 0 for exempt health care (art. 10 DPR 633/72).
  vat_rate numeric(5, 2) NOT NULL DEFAULT 0,
  tax_amount numeric(14, 2) NOT NULL DEFAULT 0,
  total_amount numeric(14, 2) NOT NULL,
  treatment_plan_item_id uuid REFERENCES treatment_plan_items(id),
  UNIQUE (invoice_id, position)
);
CREATE INDEX invoice_lines_clinic_invoice_idx ON invoice_lines (clinic_id, invoice_id);

ALTER TABLE payments
  ADD COLUMN reference text,
  ADD COLUMN payment_plan_id uuid REFERENCES payment_plans(id),
  -- The normalized request of a /v1 payment: a retry with the same reference must match it.
  ADD COLUMN request_fingerprint text;
-- Idempotency on the provider's reference: INSERT ... ON CONFLICT DO NOTHING decides between concurrent retries.
CREATE UNIQUE INDEX payments_clinic_reference_idx ON payments (clinic_id, reference) WHERE reference IS NOT NULL;
CREATE INDEX payments_clinic_created_idx ON payments (clinic_id, created_at, id);
CREATE INDEX payments_clinic_patient_idx ON payments (clinic_id, patient_id);

-- What one payment paid: a payment toward a patient's oldest due amounts can cover several.
CREATE TABLE payment_allocations (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  payment_id uuid NOT NULL REFERENCES payments(id),
  position integer NOT NULL,
  invoice_id uuid REFERENCES invoices(id),
  installment_id uuid REFERENCES installments(id),
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  PRIMARY KEY (payment_id, position),
  CHECK (invoice_id IS NOT NULL OR installment_id IS NOT NULL)
);
CREATE INDEX payment_allocations_clinic_payment_idx ON payment_allocations (clinic_id, payment_id);
CREATE INDEX installments_clinic_plan_idx ON installments (clinic_id, payment_plan_id, due_date);
