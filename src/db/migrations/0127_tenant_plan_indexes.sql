-- Indexes the plans test found missing (test/db/plans.test.ts, `npm run bench:plans`).
-- GET /v1/webhook-deliveries shows the deliveries of destinations deleted less than 30 days ago
-- too, which the partial webhook_endpoints_clinic_idx (live destinations only) cannot find:
-- the join read every clinic's destinations.
CREATE INDEX webhook_endpoints_clinic_all_idx ON webhook_endpoints (clinic_id, deleted_at);
-- The job that ends the bot's pauses (every minute or so) read every conversation of every clinic.
CREATE INDEX conversations_bot_pause_idx ON conversations (bot_paused_until) WHERE bot_state = 'in_pausa';
-- The time taken on a calendar's doctors and chairs (busyTimesQuery) is one GiST lookup per
-- doctor or chair on the overlap constraints' indexes (0020_agenda.sql). With many of them
-- (a calendar of 64 doctors) PostgreSQL preferred the range alone on the doctors' index: every
-- clinic's appointments of the day, the clinic's kept by the filter. The clinic and the range
-- together read only the clinic's appointments of that time.
CREATE INDEX appointments_clinic_busy_idx ON appointments USING gist (clinic_id, tstzrange(start_at, end_at, '[)'))
  WHERE status NOT IN ('cancelled', 'no_show', 'postponed', 'draft');
