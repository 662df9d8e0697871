-- GET /appointments?limit=50 with the read cache off: the page's query, then its access-log
-- row (the server group-commits several requests' rows in one statement; here each has its own).
SELECT * FROM appointments WHERE clinic_id = :clinic AND true ORDER BY updated_at, id LIMIT 51;
INSERT INTO access_log (id, clinic_id, api_key_id, request_id, resources_id, fields)
VALUES (gen_random_uuid(), :clinic, NULL, 'pgbench', :resources, ARRAY['title', 'reason']);
