-- The outbox partitioned by month of `created_at` (docs/operations.md, "Partitioned tables"),
-- as migration 0136 did the access log and in the same steps: every row is moved while the
-- previous version may still record events, then its writes are held for the last rows and the
-- change of names. Its retention drops a month whole: the batched DELETE of the
-- `purge-webhook-data` job, and the index on `created_at` alone that served it, are gone.

CREATE TABLE events_by_month (
  id uuid NOT NULL,
  clinic_id uuid NOT NULL,
  type text NOT NULL,
  facility_id uuid,
  -- The scope a key needs to see the event (for events.skipped: the scope of data.type).
  scope text NOT NULL,
  livemode boolean NOT NULL,
  api_version text NOT NULL DEFAULT 'v1',
  data jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
) PARTITION BY RANGE (created_at);

SELECT create_month_partitions('events_by_month', least(min(created_at), now()), greatest(max(created_at), now() + interval '2 months'), 'events')
FROM events;

INSERT INTO events_by_month (id, clinic_id, type, facility_id, scope, livemode, api_version, data, created_at)
SELECT id, clinic_id, type, facility_id, scope, livemode, api_version, data, created_at FROM events;

ALTER TABLE events_by_month ADD CONSTRAINT events_by_month_pkey PRIMARY KEY (id, created_at);
CREATE INDEX events_by_month_clinic_created_idx ON events_by_month (clinic_id, created_at, id);
CREATE INDEX events_by_month_clinic_type_created_idx ON events_by_month (clinic_id, type, created_at, id);
ANALYZE events_by_month;
-- Adding the foreign key locks clinics against writes to the commit (a clinic's own row changes
-- rarely: its settings); the events' own writes are held only below.
ALTER TABLE events_by_month ADD CONSTRAINT events_by_month_clinic_id_fkey FOREIGN KEY (clinic_id) REFERENCES clinics (id);

-- From here to the commit the previous version's events wait (and the changes they commit with).
LOCK TABLE events IN EXCLUSIVE MODE;
-- An event's time is given by the service when it is recorded, within its transaction, and
-- committed at most seconds later: the hour before this migration began holds those committed
-- since the copy started.
INSERT INTO events_by_month (id, clinic_id, type, facility_id, scope, livemode, api_version, data, created_at)
SELECT o.id, o.clinic_id, o.type, o.facility_id, o.scope, o.livemode, o.api_version, o.data, o.created_at
FROM events o
WHERE o.created_at >= now() - interval '1 hour'
  AND NOT EXISTS (SELECT 1 FROM events_by_month n WHERE n.id = o.id AND n.created_at = o.created_at);

DROP TABLE events;
ALTER TABLE events_by_month RENAME TO events;
ALTER TABLE events RENAME CONSTRAINT events_by_month_pkey TO events_pkey;
ALTER TABLE events RENAME CONSTRAINT events_by_month_clinic_id_fkey TO events_clinic_id_fkey;
ALTER INDEX events_by_month_clinic_created_idx RENAME TO events_clinic_created_idx;
ALTER INDEX events_by_month_clinic_type_created_idx RENAME TO events_clinic_type_created_idx;
