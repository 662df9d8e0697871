-- The agent tools' call ledger (src/modules/tool-calls) reads a call's writes from the idempotency
-- keys themselves where the write's operation takes one: a writing tool call's key is
-- `tool:<call>:<tool>:<arguments' hash>:<chain>`, and its row is written by the request anyway and
-- marked inside the work's own transaction, so such a write needs no ledger row of its own (which
-- was one more committed statement after every tool write). `tool_call_writes` keeps the writes
-- whose operation takes no key (a cancel, a release).
-- The index finds a call's keys by the call's part of the key, for one clinic; only the agents'
-- keys are in it.
CREATE INDEX idempotency_keys_tool_call_idx ON idempotency_keys (clinic_id, (split_part(idempotency_key, ':', 2)), created_at)
  WHERE idempotency_key LIKE 'tool:%';
