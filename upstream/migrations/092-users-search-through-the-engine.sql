-- ADR 056: the users list is searched by the engine (`searchForms`), as its definition declares: the e-mail, the
-- phone number and the full name (a search expression). The engine reads a text field as `lower(<field>)`, so the
-- phone number's trigram index is now on `lower(phone_number)` (it was on the column as stored, which the list
-- searched case-sensitively); the phone number and the full name are declared `shortSearch`, so each gets the
-- bigram index a text too short for a trigram reads ("ab" read every user: 0.5-0.7 s at 1M users).
create index if not exists users_phone_number_lower_trgm on users using gin (lower(phone_number) gin_trgm_ops);
drop index if exists users_phone_number_trgm;
create index if not exists users_phone_number_bigrams on users using gin (search_bigrams(lower(phone_number)));
create index if not exists users_full_name_bigrams on users using gin (
  search_bigrams(lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '')))
);

-- The users list sorts by invitation date too; every other sortable column of it has its b-tree (the page reads
-- it in order, backwards for a descending sort, the empty values by `invited_at is null`: ADR 056).
create index if not exists users_invited_at_idx on users (invited_at, id);

-- The estimate of a search decides how its page is read (ADR 047): it needs the new expressions' statistics.
analyze users;
