-- The access log (spec 1.6) names the resources every read returned. An integration that polls
-- the same page of 50 appointments wrote the same 50 ids, and 50 entries of a GIN index, on every
-- row: most of the database's work per read. Each distinct list of resources is now stored once,
-- in access_log_resources, and a log row names its list by id. The id is derived from the list's
-- content (the writer computes the same value: src/modules/access-log/resources.ts), so a list
-- read again is not written again.
--
-- The foreign keys to clinics and api_keys are dropped: an audit row records a past fact, and
-- must neither be refused nor stand in the way of what it names. Every row's clinic and key
-- come from the request's authentication, and neither is ever deleted. Dropping them also
-- removes two lookups per read.
-- The key to access_log_resources stays: it is what catches a writer whose memory of the
-- stored lists no longer matches the table, and the writer then stores the lists again.

CREATE FUNCTION access_log_resources_id(clinic_id uuid, resource_type text, resource_ids uuid[])
RETURNS uuid LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT substr(encode(sha256(convert_to(clinic_id::text || '/' || resource_type || '/' || array_to_string(resource_ids, ','), 'UTF8')), 'hex'), 1, 32)::uuid
$$;

CREATE TABLE access_log_resources (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL,
  resource_type text NOT NULL,
  resource_ids uuid[] NOT NULL
);
CREATE INDEX access_log_resources_ids_idx ON access_log_resources USING gin (resource_ids);

INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids)
SELECT DISTINCT access_log_resources_id(clinic_id, resource_type, resource_ids), clinic_id, resource_type, resource_ids
FROM access_log;

-- The old columns resource_type and resource_ids stay, nullable and emptied, for the processes
-- of the previous version during a rolling upgrade (docs/operations.md, "Upgrading"): a row
-- they insert in the old shape is converted by the trigger below. A later release drops them.
ALTER TABLE access_log
  ADD COLUMN resources_id uuid,
  ALTER COLUMN resource_type DROP NOT NULL,
  ALTER COLUMN resource_ids DROP NOT NULL,
  DROP CONSTRAINT access_log_clinic_id_fkey,
  DROP CONSTRAINT access_log_api_key_id_fkey;
DROP INDEX access_log_resource_idx;
UPDATE access_log
SET resources_id = access_log_resources_id(clinic_id, resource_type, resource_ids), resource_type = NULL, resource_ids = NULL;
ALTER TABLE access_log
  ALTER COLUMN resources_id SET NOT NULL,
  ADD CONSTRAINT access_log_resources_id_fkey FOREIGN KEY (resources_id) REFERENCES access_log_resources (id);
CREATE INDEX access_log_resources_id_idx ON access_log (resources_id);

CREATE FUNCTION access_log_store_resources() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.resources_id := access_log_resources_id(NEW.clinic_id, NEW.resource_type, NEW.resource_ids);
  INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids)
  VALUES (NEW.resources_id, NEW.clinic_id, NEW.resource_type, NEW.resource_ids)
  ON CONFLICT (id) DO NOTHING;
  NEW.resource_type := NULL;
  NEW.resource_ids := NULL;
  RETURN NEW;
END
$$;
-- Only rows in the old shape run it: the WHEN test costs this version's rows nothing more.
CREATE TRIGGER access_log_store_resources BEFORE INSERT ON access_log
FOR EACH ROW WHEN (NEW.resources_id IS NULL) EXECUTE FUNCTION access_log_store_resources();

-- The log as it reads: one row per read, with the type and ids of what it returned.
CREATE VIEW access_log_entries AS
SELECT l.id, l.clinic_id, l.api_key_id, l.request_id, r.resource_type, r.resource_ids, l.fields, l.at
FROM access_log l
JOIN access_log_resources r ON r.id = l.resources_id;
