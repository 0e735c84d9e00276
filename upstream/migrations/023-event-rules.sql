-- Events, slots and bookings: the §4/§5 rules as constraints, and what the consumer app relies on.

alter table events
  add constraint events_status_check check (status in (1, 2, 3, 4)),
  add constraint events_dates_check check (end_date >= start_date);

alter table event_slots
  add constraint event_slots_times_check check (start_time <= end_time),
  add constraint event_slots_capacity_check check (capacity >= 1);
create index event_slots_event_date_idx on event_slots (event_id, date, start_time);

alter table event_bookings
  add constraint event_bookings_status_check check (status in ('booked', 'confirmed', 'attended', 'canceled')),
  alter column booked_at set default now();
create index event_bookings_main_company_id_idx on event_bookings (main_company_id);
-- services.id of the service a booking became; the foreign key is added once the services table exists.
create index event_bookings_service_id_idx on event_bookings (service_id) where service_id is not null;
