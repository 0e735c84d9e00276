-- Indexes the list searches need at scale (bench/RESULTS.md, data scale): the lists search with
-- `lower(column) like '%text%'`, which no b-tree can serve; trigram GIN indexes can. Only the tables
-- that grow with the business (users, bicycles) get them; the catalogues stay small.
create extension if not exists pg_trgm;

create index bicycles_brand_and_model_trgm on bicycles using gin (lower(brand_and_model) gin_trgm_ops);
create index bicycles_serial_number_trgm on bicycles using gin (lower(serial_number) gin_trgm_ops);
create index bicycles_insurance_company_trgm on bicycles using gin (lower(insurance_company) gin_trgm_ops);

-- Users are searched by e-mail (also when a bicycle is searched by its owner), full name and phone.
create index users_email_trgm on users using gin (lower(email) gin_trgm_ops);
create index users_full_name_trgm on users using gin ((lower(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))) gin_trgm_ops);
create index users_phone_number_trgm on users using gin (phone_number gin_trgm_ops);
