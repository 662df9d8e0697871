-- A surname said with a birth year ("Montanari 1965") also reads the word as a first name among
-- the patients born that year. With (clinic, first, last) alone the planner reads the whole
-- clinic's patients for that year's rows (a sequential scan, growing with the clinic): this
-- index finds each first name's patients of the year directly.
CREATE INDEX patients_clinic_first_birth_idx ON patients (clinic_id, first_norm, date_of_birth) WHERE date_of_birth IS NOT NULL;
