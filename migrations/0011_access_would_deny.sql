-- Requests that ACCESS_ENFORCE=true would have refused while it was false (report mode), counted per hour by every
-- process (core/src/auth/would-deny.ts), so that a start can say how many there were in the last day.
create table access_would_deny (
  hour timestamptz primary key,
  count bigint not null check (count >= 0)
);
