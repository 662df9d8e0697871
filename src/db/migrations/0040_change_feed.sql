-- The change feed of the read caches (src/db/change-feed.ts): every change of a row of a
-- cached table NOTIFYs `dcm_changes` with `table:clinic_id`. PostgreSQL sends it at commit
-- (never for a rolled-back change) and sends one notification per distinct payload per
-- transaction, so a bulk change of one clinic costs one message. Being a trigger, it sees
-- every writer: this service, the CLI, another process, a migration, an operator's psql.
CREATE FUNCTION dcm_note_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('dcm_changes', TG_TABLE_NAME || ':' || OLD.clinic_id::text);
  ELSE
    PERFORM pg_notify('dcm_changes', TG_TABLE_NAME || ':' || NEW.clinic_id::text);
    -- A row moved to another clinic (never done by the service) leaves the old one too.
    IF TG_OP = 'UPDATE' AND OLD.clinic_id IS DISTINCT FROM NEW.clinic_id THEN
      PERFORM pg_notify('dcm_changes', TG_TABLE_NAME || ':' || OLD.clinic_id::text);
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER facilities_change_feed AFTER INSERT OR UPDATE OR DELETE ON facilities
  FOR EACH ROW EXECUTE FUNCTION dcm_note_change();
CREATE TRIGGER appointments_change_feed AFTER INSERT OR UPDATE OR DELETE ON appointments
  FOR EACH ROW EXECUTE FUNCTION dcm_note_change();
-- TRUNCATE has no rows: it tells every clinic at once.
CREATE FUNCTION dcm_note_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('dcm_changes', TG_TABLE_NAME || ':*');
  RETURN NULL;
END $$;
CREATE TRIGGER facilities_change_feed_truncate AFTER TRUNCATE ON facilities
  FOR EACH STATEMENT EXECUTE FUNCTION dcm_note_truncate();
CREATE TRIGGER appointments_change_feed_truncate AFTER TRUNCATE ON appointments
  FOR EACH STATEMENT EXECUTE FUNCTION dcm_note_truncate();
