-- Issue 22: the services calendar's week filtered by origin (and a list filtered the same way). With only
-- (service_date, id) and (origin_type) to go on, PostgreSQL walked the status index in order, hoping to meet
-- 26 matches early, and read most of the table for a week's 2 000 of 2 million services. Both filters in
-- one index give it the 2 000 rows directly; sorting those for a page is cheap.
create index services_origin_type_date_idx on services (origin_type, service_date);
