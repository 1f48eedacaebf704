-- Issue 23: tokens expire and remember when they were last used; requests may wait for a person's
-- approval (state AWAITING_APPROVAL, 17 characters) and carry what the approval rules decided.
ALTER TABLE api_token ADD COLUMN expires_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE api_token ADD COLUMN last_used_at TIMESTAMP WITH TIME ZONE;

ALTER TABLE gpu_request ALTER COLUMN state SET DATA TYPE VARCHAR(32);
ALTER TABLE gpu_request ADD COLUMN approval TEXT;

