-- The run that holds a post's claim (the job context's runKey): its own retry, after a failure or after its worker
-- died mid-post, takes the claim over at once instead of waiting for the claim to go stale.
alter table leetcode_posts add column claim_key text;
