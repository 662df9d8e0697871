-- A link's use is held by a lease the process renews while it uploads, so a
-- use whose process died (a crash mid-upload) lapses and the link may be used again before it
-- expires. NULL: a use claimed before this column, taken as lapsed.
ALTER TABLE document_link_uses ADD COLUMN lease_until timestamptz(3);
