-- What a key is issued for: a plain integration, a chat bot or a voice agent.
-- An agent key's bookings get origin bot / voice, and it is refused while the clinic's AI is off.
ALTER TABLE api_keys ADD COLUMN agent text NOT NULL DEFAULT 'none'
  CHECK (agent IN ('none', 'chat_bot', 'voice_agent'));
