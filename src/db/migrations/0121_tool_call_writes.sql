-- The agent tools' call ledger (src/modules/tool-calls/README.md): per call (clinic, call id),
-- the last writing tool call that succeeded, so a retry of it replays its first result and any
-- other writing call of the call is a new attempt. Rows live as long as idempotency keys
-- (24 hours) and are deleted by the same job.
CREATE TABLE tool_call_writes (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  call_id text NOT NULL,
  tool text NOT NULL,
  args_hash text NOT NULL,
  idempotency_key text NOT NULL,
  written_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (clinic_id, call_id)
);
CREATE INDEX tool_call_writes_written_idx ON tool_call_writes (written_at);
