create table quota_things (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  label text not null
);
