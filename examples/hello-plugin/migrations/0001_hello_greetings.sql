-- Greetings officers leave for their org, and the tally the hello.tally job keeps.
create table hello_greetings (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  name text not null check (length(name) between 1 and 80),
  created_at timestamptz not null default now()
);
create index hello_greetings_org on hello_greetings (organization_id, created_at desc);

create table hello_tallies (
  organization_id integer primary key references organizations (id) on delete cascade,
  greetings integer not null,
  counted_at timestamptz not null
);
