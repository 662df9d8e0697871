-- The agenda's weekly figures (GET /v1/stats/agenda, src/modules/stats) read a year of a clinic
-- in one statement: each table is read once over the range, from an index that holds every
-- column the figures need, so the scan never visits the table's rows (an index-only scan).
CREATE INDEX appointments_clinic_start_stats_idx ON appointments (clinic_id, start_at) INCLUDE (end_at, status, facility_id, id);
CREATE INDEX waitlist_offers_accepted_idx ON waitlist_offers (clinic_id, start_at) INCLUDE (end_at, facility_id) WHERE status = 'accepted';
CREATE INDEX recall_attempts_created_idx ON recall_attempts (clinic_id, created_at) INCLUDE (outcome, facility_id);
