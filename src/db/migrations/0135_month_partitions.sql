-- Tables partitioned by month (docs/operations.md, "Partitioned tables"): one partition per
-- calendar month in UTC, named <table>_<yyyy>_<mm>, holding the rows whose time falls in
-- [first of the month 00:00Z, first of the next month 00:00Z). The two functions below are the
-- one statement of that rule: the migrations that partition a table create its months with the
-- first, the `partitions` job (src/jobs/partitions.ts) makes months ahead with it and finds
-- the months past retention with the second, and the seeding scripts make the months they fill.

-- Creates the missing months of `parent` from the month of `from_at` through the month of `to_at`
-- and answers how many it created. `prefix` names them (default: the table's name): a migration
-- that builds a table under a temporary name gives its months their final names at once.
-- Two processes may call it at once (the job runs in every process): the lock serializes them,
-- and the second finds the months made.
CREATE FUNCTION create_month_partitions(parent text, from_at timestamptz, to_at timestamptz, prefix text DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  month date := date_trunc('month', from_at AT TIME ZONE 'UTC')::date;
  last date := date_trunc('month', to_at AT TIME ZONE 'UTC')::date;
  name text;
  created integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('create_month_partitions/' || parent));
  WHILE month <= last LOOP
    name := coalesce(prefix, parent) || '_' || to_char(month, 'YYYY_MM');
    IF to_regclass(quote_ident(name)) IS NULL THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent,
        to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00', to_char((month + interval '1 month')::date, 'YYYY-MM-DD') || ' 00:00:00+00');
      created := created + 1;
    END IF;
    month := (month + interval '1 month')::date;
  END LOOP;
  RETURN created;
END
$$;

-- The months of `parent` (partitions named as above; any other partition is left alone) whose
-- whole month ends at or before `before`, oldest first.
CREATE FUNCTION month_partitions_before(parent text, before timestamptz)
RETURNS SETOF text LANGUAGE sql STABLE AS $$
  SELECT c.relname::text
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhparent = parent::regclass
    AND c.relname ~ ('^' || parent || '_[0-9]{4}_[0-9]{2}$')
    AND (to_date(right(c.relname, 7), 'YYYY_MM') + interval '1 month') AT TIME ZONE 'UTC' <= before
  ORDER BY c.relname
$$;
