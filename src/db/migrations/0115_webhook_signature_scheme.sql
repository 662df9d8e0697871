-- A destination may opt in to the Standard Webhooks signature (webhook-id,
-- webhook-timestamp, webhook-signature: v1,<base64>) instead of the spec's X-Service-Signature.
-- Existing destinations keep the spec's scheme.
ALTER TABLE webhook_endpoints
  ADD COLUMN signature_scheme text NOT NULL DEFAULT 'service'
  CHECK (signature_scheme IN ('service', 'standard'));
