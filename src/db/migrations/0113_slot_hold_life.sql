-- A holder's holds live at most a set time (src/modules/holds/caps.ts) from its first
-- one; a new hold with the same holder_ref replaces the row and carries this column over.
ALTER TABLE slot_holds ADD COLUMN first_held_at timestamptz(3) NOT NULL DEFAULT now();
UPDATE slot_holds SET first_held_at = created_at;
