-- The asking of an appointment belongs to its time: once the appointment moves (the reschedule a
-- patient asked for, or any other move), its attempts, outcome and close no longer apply, and the
-- rules' steps announce the new time again. `start_at` is the time the attempts were about.
ALTER TABLE appointment_confirmations ADD COLUMN start_at timestamptz(3);
UPDATE appointment_confirmations s SET start_at = a.start_at FROM appointments a WHERE a.id = s.appointment_id AND a.clinic_id = s.clinic_id;
ALTER TABLE appointment_confirmations ALTER COLUMN start_at SET NOT NULL;
