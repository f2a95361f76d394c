-- Hosting (module hostprov): apps deployed as pods on the org's provider account, and each app's deploys.

create table hostprov_apps (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  name text not null check (name ~ '^[a-z][a-z0-9-]{0,39}$'),
  -- the manifest with defaults filled in (app-manifest.ts AppManifest); a change applies at the next deploy
  manifest jsonb not null,
  -- the provider's pod, once the first deploy made it
  pod_id text,
  -- the deploy that is live and was healthy (set when a deploy turns healthy)
  current_deploy_id bigint,
  -- the 5-minute check of the current deploy (job hostprov.health): healthy or unhealthy, why, when
  health_status text check (health_status in ('healthy', 'unhealthy')),
  health_detail text,
  health_checked_at timestamptz,
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index hostprov_apps_name on hostprov_apps (organization_id, name);
-- The 5-minute check takes the apps checked longest ago.
create index hostprov_apps_health on hostprov_apps (health_checked_at nulls first) where current_deploy_id is not null;

create table hostprov_deploys (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  app_id integer not null references hostprov_apps (id) on delete cascade,
  -- exactly one of tag and digest; image is the reference sent to the provider (repo:tag or repo@digest)
  tag text,
  digest text,
  image text not null,
  -- the app's manifest when the deploy started (a roll back reuses its target's)
  manifest jsonb not null,
  -- queued (the job has not run), starting (the pod has the image; health checks until the deadline), healthy, failed
  status text not null default 'queued' check (status in ('queued', 'starting', 'healthy', 'failed')),
  -- officer (a route), tool (an agent), rollback (an officer's or agent's roll back), auto_rollback (after a failure)
  trigger text not null check (trigger in ('officer', 'tool', 'rollback', 'auto_rollback')),
  rollback_of bigint references hostprov_deploys (id) on delete set null,
  error text,
  created_by text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  health_deadline_at timestamptz,
  finished_at timestamptz,
  check ((tag is null) <> (digest is null))
);
-- History newest first, and the last healthy deploy of an app.
create index hostprov_deploys_app on hostprov_deploys (app_id, id desc);
create index hostprov_deploys_healthy on hostprov_deploys (app_id, id desc) where status = 'healthy';
-- One deploy of an app in progress at a time (the 409 of POST /deploys and /rollback, also against races).
create unique index hostprov_deploys_in_progress on hostprov_deploys (app_id) where status in ('queued', 'starting');
-- The 5-minute sweep of deploys whose job or checks were lost.
create index hostprov_deploys_open on hostprov_deploys (created_at) where status in ('queued', 'starting');

alter table hostprov_apps add constraint hostprov_apps_current_deploy
  foreign key (current_deploy_id) references hostprov_deploys (id) on delete set null;
