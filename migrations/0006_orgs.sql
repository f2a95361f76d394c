-- Orgs that may publish shared content (submodules), and job runs skipped because their module was off.
alter table organizations add column publisher boolean not null default false;

alter table job_runs drop constraint job_runs_status_check;
alter table job_runs add constraint job_runs_status_check check (status in ('queued', 'running', 'succeeded', 'failed', 'skipped'));
