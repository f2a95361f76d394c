-- Pods made by the org's officers on the org's own provider account (spec "Pods": compute_pods, with a provider
-- column). The provider keeps the pod; this row keeps who may use it. pod_id is the provider's id, as routes name it.
-- env values stay with the provider (they may hold tokens): only the names are kept, to show.
create table compute_pods (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  provider text not null,
  pod_id text not null,
  name text not null,
  image text not null,
  gpu_type_id text,
  gpu_count integer,
  cpu_flavor text,
  vcpu_count integer,
  cloud_type text,
  container_disk_in_gb integer,
  volume_in_gb integer,
  volume_mount_path text,
  env_names text[] not null default '{}',
  is_public boolean not null default false,
  allowed_users text[] not null default '{}',
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index compute_pods_pod on compute_pods (organization_id, pod_id);
