-- Searches of columns whose values repeat (ADR 050): a model, a street address, an insurer, a person's
-- name. A contains-search (`lower(column) like '%text%'`) through a trigram index reads every posting list
-- of the search's trigrams, and a trigram common in a column of few distinct values lists most of the
-- table ("hornsgatan 17" read 2 100 index pages of 2M services' addresses: 55 ms). The distinct values
-- are few, so they are kept once each in `search_terms` (the source is `<table>.<field>`, the term is
-- the value as searched, lowered): a search finds the matching terms there (a trigram index over a few
-- thousand rows) and the rows by a b-tree on the same lowered expression. The same rows match: a row's
-- value contains the text exactly when its term does, and every value has its term (the triggers below
-- add them; a term whose rows have changed stays behind and finds nothing).
-- The fields are those declared `valuesRepeat` in shared/entities (and the users' full name, which the
-- users list searches); the expressions must stay the same text as the engine's for the planner to use them.
create extension if not exists pg_trgm;

create table if not exists search_terms (
  source text not null,
  term text not null,
  primary key (source, term)
);
create index if not exists search_terms_term_trgm on search_terms using gin (term gin_trgm_ops);

create function bicycles_search_terms() returns trigger language plpgsql as $$
begin
  insert into search_terms (source, term)
  select v.source, v.term from (values ('bicycles.brand_and_model', lower(new.brand_and_model)), ('bicycles.insurance_company', lower(new.insurance_company))) v (source, term)
  where v.term is not null
  on conflict do nothing;
  return null;
end $$;
create trigger bicycles_search_terms after insert or update of brand_and_model, insurance_company on bicycles
  for each row execute function bicycles_search_terms();

create function services_search_terms() returns trigger language plpgsql as $$
begin
  if new.address is not null then
    insert into search_terms (source, term) values ('services.address', lower(new.address)) on conflict do nothing;
  end if;
  return null;
end $$;
create trigger services_search_terms after insert or update of address on services
  for each row execute function services_search_terms();

create function users_search_terms() returns trigger language plpgsql as $$
begin
  insert into search_terms (source, term)
  values ('users.full_name', lower(coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, '')))
  on conflict do nothing;
  return null;
end $$;
create trigger users_search_terms after insert or update of first_name, last_name on users
  for each row execute function users_search_terms();

insert into search_terms (source, term) select distinct 'bicycles.brand_and_model', lower(brand_and_model) from bicycles where brand_and_model is not null on conflict do nothing;
insert into search_terms (source, term) select distinct 'bicycles.insurance_company', lower(insurance_company) from bicycles where insurance_company is not null on conflict do nothing;
insert into search_terms (source, term) select distinct 'services.address', lower(address) from services where address is not null on conflict do nothing;
insert into search_terms (source, term) select distinct 'users.full_name', lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '')) from users on conflict do nothing;

create index if not exists bicycles_brand_and_model_lower_idx on bicycles (lower(brand_and_model));
create index if not exists bicycles_insurance_company_lower_idx on bicycles (lower(insurance_company));
create index if not exists services_address_lower_idx on services (lower(address));
create index if not exists users_full_name_lower_idx on users ((lower(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))));

-- The planner's estimate of a search (ADR 047 plans a page by it) reads the new expressions' statistics.
analyze search_terms;
analyze bicycles;
analyze services;
analyze users;
