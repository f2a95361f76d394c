-- A cron run's row, found again by graphile-worker's job id (kept across the attempts of one run, new for every
-- tick): a retried attempt, or one re-run after its worker died, continues the run's row instead of opening another
-- and leaving the first queued or running for ever. Rows of runs started through startJob leave it empty.
alter table job_runs add column worker_job_id bigint;
create unique index job_runs_worker_job on job_runs (worker_job_id) where worker_job_id is not null;
