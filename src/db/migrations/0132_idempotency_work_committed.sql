-- `committed`: the work of the key's request committed, and its response is not recorded yet. The
-- work's own transactions write it (src/db/idempotency.ts `keyedDb`), so it is true exactly when
-- their COMMIT was: when the answer of a COMMIT is lost (a connection cut while it ran, the process
-- killed after it), the row still tells whether the work ran, and a retry never runs it again
-- (src/db/IDEMPOTENCY.md, rule 5).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_progress', 'committed', 'completed'));
