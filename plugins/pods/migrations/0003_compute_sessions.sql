-- Sessions of a pod (spec "Pods": time windows of 24 hours or less; the job podhost.schedule starts the pod 10 minutes
-- before a session and stops it after the last open one ended). A session goes with its pod: the foreign key on the
-- org and the provider's pod id deletes it when the pod is terminated, and cannot point at another org's pod.
-- The schedule's columns make each transition happen once, even when two workers run the job at the same time
-- (they take the pod row's lock, then read these):
--   start_handled_at  the start was handled: the schedule started the pod, or found it already up
--   started_pod       the schedule itself started the pod for this session (a deleted session then stops it)
--   end_handled_at    the end was handled: the pod was stopped, or left to another open session
--   deleted_at        deleted by an officer while the pod the schedule started for it may still run: hidden from
--                     the routes; the next run stops the pod (unless another session is open) and removes the row
create table compute_sessions (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  pod_id text not null,
  title text not null,
  start_at timestamptz not null,
  stop_at timestamptz not null,
  created_by text,
  created_at timestamptz not null default now(),
  start_handled_at timestamptz,
  started_pod boolean not null default false,
  end_handled_at timestamptz,
  deleted_at timestamptz,
  foreign key (organization_id, pod_id) references compute_pods (organization_id, pod_id) on delete cascade,
  check (stop_at > start_at and stop_at - start_at <= interval '24 hours')
);
create index compute_sessions_pod on compute_sessions (organization_id, pod_id, start_at);
-- The job reads only sessions whose end it has not handled yet.
create index compute_sessions_pending on compute_sessions (start_at) where end_handled_at is null;
-- Ended sessions are pruned by age.
create index compute_sessions_stop on compute_sessions (stop_at);
