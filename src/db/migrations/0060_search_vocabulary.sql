-- Patient search without a scan of the patients.
--
-- 1. A misspelled part of a name that no deletion key or Double Metaphone key reaches (two
--    errors in one word, a name heard through speech-to-text) is compared with the clinic's
--    names of about its length only: this index hands them over in (clinic, length) order,
--    index-only, and levenshtein_less_equal keeps those within the part's edit limit.
CREATE INDEX patient_name_terms_length_idx ON patient_name_terms (clinic_id, char_length(term), term);

-- 2. A name of several words ("maria grazia", "de luca", "rossi bianchi") is also found by
--    each of its words: the words join the lookup keys (normalize.ts lookupKeys), so
--    "grazia de luca" reaches Maria Grazia De Luca through btree lookups.
INSERT INTO patient_name_keys (clinic_id, key, term)
SELECT t.clinic_id, w.word, t.term
FROM patient_name_terms t, regexp_split_to_table(t.term, ' ') AS w(word)
WHERE t.term LIKE '% %' AND w.word <> ''
ON CONFLICT DO NOTHING;

-- 3. The trigram index on the full name served the fallback that scanned the patients of
--    every clinic (seconds at 100,000 patients); nothing reads it any more.
DROP INDEX IF EXISTS patients_full_norm_trgm_idx;
