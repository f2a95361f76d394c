-- The text matches of a search (search.ts textSearch), by the GIN index of `tsv`. PostgreSQL tests a statement's own
-- conditions after a table's row-level security policies unless they are leakproof, and `@@` is not: on the
-- service role a statement could not take the GIN index and would test every passage the policies let through
-- (~1 s for an org of 200,000 passages, against ~1 ms). So this function runs as the tables' owner (security
-- definer), whose policy does not hold the index back, and applies the policies itself: it answers only passages
-- the org its transaction is bound to may read (core/src/db/org-binding.ts; none with no org bound), in the three
-- parts of the search's scope (searchScope): the org's own, other orgs' public ones, and the shared pages of
-- `submodules`. The first `cap` matches of each part, in the category when one is given (null: any). It answers ids
-- and tsvectors only; the search reads the passages themselves on the org's handle, under the policies.
create function knowledge_text_matches(query tsquery, submodules text[], category text, cap integer)
  returns table (id bigint, tsv tsvector)
  language plpgsql stable security definer
as $fn$
declare
  org integer := nullif(current_setting('quad.org_id', true), '')::integer;
  -- The words and the category; each part adds whose rows it reads. Planned at each call with its values
  -- (execute … using), so the planner picks a part's index by the org's size and the words' frequency.
  matching constant text := 'select c.id, c.tsv from knowledge_chunks c where c.tsv @@ $1
    and ($2::text is null or c.source_id in (select s.id from knowledge_sources s where s.category = $2)) and ';
begin
  if org is null then
    return;
  end if;
  return query execute matching || 'c.organization_id = $3 limit $4' using query, category, org, cap;
  return query execute matching || 'c.public and c.organization_id <> $3 limit $4' using query, category, org, cap;
  if cardinality(submodules) > 0 then
    return query execute matching || 'c.shared_scope = any($3) limit $4' using query, category, submodules, cap;
  end if;
end
$fn$;

-- A security definer function names its tables through a search_path it fixes: this schema's, then pg_temp's, so
-- a temporary table of the caller's cannot stand in for them.
do $$
begin
  execute format('alter function knowledge_text_matches(tsquery, text[], text, integer) set search_path = %I, pg_temp', current_schema());
end
$$;
