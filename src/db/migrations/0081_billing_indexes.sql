-- After 0080: every key and index of the billing tables leads with clinic_id (the
-- tenancy convention), and payments are found by what they paid (GET /v1/payments?invoiceId=…).
ALTER TABLE treatment_plan_items DROP CONSTRAINT treatment_plan_items_treatment_plan_id_position_key;
ALTER TABLE treatment_plan_items ADD CONSTRAINT treatment_plan_items_clinic_plan_position_key UNIQUE (clinic_id, treatment_plan_id, position);
DROP INDEX treatment_plan_items_clinic_plan_idx;

ALTER TABLE invoice_lines DROP CONSTRAINT invoice_lines_invoice_id_position_key;
ALTER TABLE invoice_lines ADD CONSTRAINT invoice_lines_clinic_invoice_position_key UNIQUE (clinic_id, invoice_id, position);
DROP INDEX invoice_lines_clinic_invoice_idx;

ALTER TABLE payment_allocations DROP CONSTRAINT payment_allocations_pkey;
ALTER TABLE payment_allocations ADD PRIMARY KEY (clinic_id, payment_id, position);
DROP INDEX payment_allocations_clinic_payment_idx;
CREATE INDEX payment_allocations_clinic_invoice_idx ON payment_allocations (clinic_id, invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX payment_allocations_clinic_installment_idx ON payment_allocations (clinic_id, installment_id) WHERE installment_id IS NOT NULL;

-- Pages of GET /v1/payments (by creation, then id: payments_clinic_created_idx) make the index on creation alone redundant.
DROP INDEX payments_clinic_idx;
