-- The dashboard's last-30-day series read a recent range of finished services (ADR 016).
create index services_finished_at_idx on services (finished_at) where finished_at is not null;
-- A buddy's own figures: their services by status and day.
create index services_buddy_status_date_idx on services (buddy_id, status, service_date);
