-- ADR 054: contains-searches of a text too short for a trigram ("zq", "ab": two characters or more without a run of
-- three letters or digits) read the values' pairs of characters from a GIN index instead of every value. A value
-- holds the text only if it holds each of the text's pairs, so `search_bigrams(lower(<col>)) @> search_bigrams(<text>)`
-- finds every row the LIKE finds (and the LIKE keeps only those). One index per field declared `shortSearch`, and one
-- on the users' name label (`labelShortSearch`, the label services search their owner by).
-- Linear in the text's length: the characters once as an array, each paired with the next (`substr(value, i, 2)`
-- for every i walked the text from its start in UTF-8, 22 ms for 1 760 characters).
create or replace function search_bigrams(value text) returns text[]
  language sql immutable strict parallel safe
  as $$ select coalesce(array_agg(distinct x || y), '{}') from (select string_to_array(value, null) a) s, unnest(a[:cardinality(a) - 1], a[2:]) u(x, y) $$;

create index if not exists services_notes_bigrams on services using gin (search_bigrams(lower(notes)));
create index if not exists bicycles_serial_number_bigrams on bicycles using gin (search_bigrams(lower(serial_number)));
create index if not exists users_email_bigrams on users using gin (search_bigrams(lower(email)));
create index if not exists users_label_bigrams on users using gin (
  search_bigrams(lower(coalesce(nullif(trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')), ''), email)))
);

-- The planner's estimate of a search (which decides how its page is read, ADR 047) needs the pairs' statistics.
analyze services;
analyze bicycles;
analyze users;
