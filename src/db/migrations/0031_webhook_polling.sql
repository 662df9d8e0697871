-- One row: until when some delivery worker has promised to look for due deliveries every few
-- milliseconds without being woken (src/webhooks/worker.ts, "Wake-up" in its README).
-- While that promise lasts, recording an event does not NOTIFY: under load a NOTIFY per event
-- would make every event's commit wait in line for PostgreSQL's single notification-queue
-- lock (held to the end of each commit, WAL flush included), which the workers do not need
-- while they are looking anyway.
CREATE TABLE webhook_polling (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  polling_until timestamptz NOT NULL
);
INSERT INTO webhook_polling (id, polling_until) VALUES (true, '-infinity');
