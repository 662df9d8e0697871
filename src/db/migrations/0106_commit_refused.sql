-- A transaction's last statement may carry its COMMIT in the same round trip
-- (src/db/then-commit.ts). Every check the service would make on the statement's answer before
-- committing is then made by the statement itself: where one fails, it calls this function, the
-- statement fails with SQLSTATE DC001, PostgreSQL skips the COMMIT that came with it, the
-- transaction rolls back and the service takes its usual path, which answers as before.
CREATE FUNCTION commit_refused(reason text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'commit refused: %', reason USING ERRCODE = 'DC001';
END
$$;
