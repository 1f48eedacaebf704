-- A request whose lease has ended is ENDED (before this version it stayed PLACED). Requests that
-- were requeued or cancelled meanwhile are no longer PLACED and are left as they are.
UPDATE gpu_request SET state = 'ENDED'
WHERE state = 'PLACED'
  AND lease_id IN (SELECT id FROM lease WHERE state IN ('RELEASED', 'EXPIRED', 'RECLAIMED', 'PREEMPTED'));
