-- The Retell API key (the one with the webhook badge) a clinic's Retell agent signs its
-- custom-function requests with (X-Retell-Signature): the runner verifies a request's signature
-- with it when set. Kept as given, as webhook endpoints' secrets are: an HMAC needs the key itself.
-- Written by the back office, never shown again (the clinic's view says only whether one is set).
ALTER TABLE clinics ADD COLUMN retell_secret text;
