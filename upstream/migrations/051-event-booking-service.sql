-- A booking's service is a real service (both tables exist now; the index is in 023).
alter table event_bookings add constraint event_bookings_service_id_fkey foreign key (service_id) references services (id) on delete restrict;
