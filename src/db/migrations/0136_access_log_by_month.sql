-- The access log partitioned by month of `at` (docs/operations.md, "Partitioned tables"): its
-- retention drops a month whole instead of deleting rows, and a read bounded in time reads only
-- its months. Every row of the plain table is moved; the table keeps its name, columns, indexes,
-- trigger and view.
--
-- The processes of the previous version may go on writing the log while this runs (a rolling
-- upgrade): the rows are copied and indexed without stopping them, and only at the end are their
-- writes held (those naming a new list of resources from the check of the foreign key, all from
-- `LOCK ... IN EXCLUSIVE MODE`; reads of the log go on) while the rows they committed meanwhile
-- are copied and the tables change names. A write held there goes, once this commits, to the
-- partitioned table, which has taken the name. docs/operations.md says how long each part takes.

CREATE TABLE access_log_by_month (
  id uuid NOT NULL,
  clinic_id uuid NOT NULL,
  api_key_id uuid,
  request_id text,
  resource_type text,
  resource_ids uuid[],
  fields text[] NOT NULL,
  at timestamptz(3) NOT NULL DEFAULT now(),
  resources_id uuid NOT NULL
) PARTITION BY RANGE (at);

-- Every month of the rows already there, and the current month and the next two (the job makes
-- the later ones). The months are named after the final name of the table.
SELECT create_month_partitions('access_log_by_month', least(min(at), now()), greatest(max(at), now() + interval '2 months'), 'access_log')
FROM access_log;

-- The rows committed so far, while the previous version may still write.
INSERT INTO access_log_by_month (id, clinic_id, api_key_id, request_id, resource_type, resource_ids, fields, at, resources_id)
SELECT id, clinic_id, api_key_id, request_id, resource_type, resource_ids, fields, at, resources_id FROM access_log;

-- The keys and indexes, built once over the copied rows rather than row by row. The primary key
-- must hold the partition key.
ALTER TABLE access_log_by_month ADD CONSTRAINT access_log_by_month_pkey PRIMARY KEY (id, at);
CREATE INDEX access_log_by_month_clinic_at_idx ON access_log_by_month (clinic_id, at, id);
CREATE INDEX access_log_by_month_resources_id_idx ON access_log_by_month (resources_id);
ANALYZE access_log_by_month;
-- The foreign key to the lists, checked in one join. Adding it locks access_log_resources against
-- writes to the commit: from here on a read whose list of resources is new waits too.
ALTER TABLE access_log_by_month ADD CONSTRAINT access_log_by_month_resources_id_fkey FOREIGN KEY (resources_id) REFERENCES access_log_resources (id);

-- From here to the commit the previous version's writes of the log wait.
LOCK TABLE access_log IN EXCLUSIVE MODE;
-- The rows committed since the copy started. A writer's row has the time its transaction began
-- (`at` DEFAULT now()), and each write is one short statement, so the hour before this migration
-- began holds them all.
INSERT INTO access_log_by_month (id, clinic_id, api_key_id, request_id, resource_type, resource_ids, fields, at, resources_id)
SELECT o.id, o.clinic_id, o.api_key_id, o.request_id, o.resource_type, o.resource_ids, o.fields, o.at, o.resources_id
FROM access_log o
WHERE o.at >= now() - interval '1 hour'
  AND NOT EXISTS (SELECT 1 FROM access_log_by_month n WHERE n.id = o.id AND n.at = o.at);

DROP VIEW access_log_entries;
DROP TABLE access_log;
ALTER TABLE access_log_by_month RENAME TO access_log;
ALTER TABLE access_log RENAME CONSTRAINT access_log_by_month_pkey TO access_log_pkey;
ALTER TABLE access_log RENAME CONSTRAINT access_log_by_month_resources_id_fkey TO access_log_resources_id_fkey;
ALTER INDEX access_log_by_month_clinic_at_idx RENAME TO access_log_clinic_at_idx;
ALTER INDEX access_log_by_month_resources_id_idx RENAME TO access_log_resources_id_idx;

-- As migration 0050: a row in the old shape (a process older than 0050) is converted.
CREATE TRIGGER access_log_store_resources BEFORE INSERT ON access_log
FOR EACH ROW WHEN (NEW.resources_id IS NULL) EXECUTE FUNCTION access_log_store_resources();

CREATE VIEW access_log_entries AS
SELECT l.id, l.clinic_id, l.api_key_id, l.request_id, r.resource_type, r.resource_ids, l.fields, l.at
FROM access_log l
JOIN access_log_resources r ON r.id = l.resources_id;
