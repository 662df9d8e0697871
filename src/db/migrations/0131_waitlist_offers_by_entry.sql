-- A freed slot is offered to the first entries without a live offer and never offered this very
-- slot (waitlist store `candidateEntries`): a look at each candidate entry's offers of any status.
-- The live offers' index by entry does not hold the others, so without this each of up to 200
-- candidates would read the clinic's offers, in the transaction of every cancellation.
CREATE INDEX waitlist_offers_entry_idx ON waitlist_offers (clinic_id, entry_id);
