-- Searches of the services list at scale (bench/RESULTS.md, data scale): a service is found by its
-- address, its notes, its bicycle's label and its owner's name (`lower(<label>) like '%text%'`). The
-- labels are the reference labels of shared/entities (services.bicycle_id, people.ts USER_FULL_NAME_SQL);
-- the expressions here must stay the same text for the planner to use them.
create extension if not exists pg_trgm;

create index services_address_trgm on services using gin (lower(address) gin_trgm_ops);
create index services_notes_trgm on services using gin (lower(notes) gin_trgm_ops);
create index bicycles_label_trgm on bicycles using gin (lower(brand_and_model || ' (' || serial_number || ')') gin_trgm_ops);
create index users_label_trgm on users using gin (lower(coalesce(nullif(trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')), ''), email)) gin_trgm_ops);
create index expert_requests_description_trgm on expert_requests using gin (lower(description) gin_trgm_ops);
