-- When an appointment was first confirmed, kept on the appointment itself: the agenda's
-- statistics count an appointment as confirmed when it ever was, also after it went on to
-- check-in, completion or a no-show. The outbox's `appointment.confirmed` events cannot serve:
-- they are kept 30 days, and matching them costs a lookup per appointment of the range.
ALTER TABLE appointments ADD COLUMN confirmed_at timestamptz(3);

-- Set by the database on every road that makes an appointment confirmed (the status change, the
-- answer to a confirmation, a creation already confirmed, an import), once: a later move away from
-- `confirmed` keeps the instant.
CREATE FUNCTION appointment_confirmed_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.confirmed_at := now();
  RETURN NEW;
END $$;
CREATE TRIGGER appointments_confirmed_at BEFORE INSERT OR UPDATE OF status ON appointments
  FOR EACH ROW WHEN (NEW.status = 'confirmed' AND NEW.confirmed_at IS NULL) EXECUTE FUNCTION appointment_confirmed_at();

-- The rows of before: those confirmed now (their last change is the best instant known), and
-- those whose confirmation event the outbox still keeps.
UPDATE appointments SET confirmed_at = updated_at WHERE status = 'confirmed';
UPDATE appointments a SET confirmed_at = e.first_at
FROM (SELECT (data->>'id')::uuid AS id, min(created_at) AS first_at FROM events WHERE type = 'appointment.confirmed' GROUP BY 1) e
WHERE a.id = e.id AND a.confirmed_at IS NULL;

-- The statistics' covering index carries the instant instead of the id it no longer needs.
DROP INDEX appointments_clinic_start_stats_idx;
CREATE INDEX appointments_clinic_start_stats_idx ON appointments (clinic_id, start_at) INCLUDE (end_at, status, facility_id, confirmed_at);
