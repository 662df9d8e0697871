-- Patient search reads the patients of a name through these two indexes; a common surname
-- alone ("rossi") brings thousands. With the id and the archived flag in the index, and the
-- visibility map kept by (auto)vacuum, those reads are index-only scans instead of one heap
-- page per patient. Erased patients carry no name (first_norm and last_norm are null), so
-- a name lookup needs no other column.
DROP INDEX patients_clinic_first_last_idx;
CREATE INDEX patients_clinic_first_last_idx ON patients (clinic_id, first_norm, last_norm) INCLUDE (id, is_active);
DROP INDEX patients_clinic_last_first_idx;
CREATE INDEX patients_clinic_last_first_idx ON patients (clinic_id, last_norm, first_norm) INCLUDE (id, is_active);
