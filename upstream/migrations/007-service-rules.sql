-- Services and scheduling: closed value sets as constraints, service details, and the indexes the
-- capacity checks and calendars use (ADR 009, 010).

alter table services
  add constraint services_status_check check (status between 1 and 5),
  add constraint services_origin_type_check check (origin_type in ('one_off', 'subscriber_', 'e_commerce', 'b2b', 'benefit_bike')),
  add constraint services_service_type_check check (service_type in ('basic', 'standard', 'premium', 'repair')),
  add constraint services_latitude_check check (latitude between -90 and 90),
  add constraint services_longitude_check check (longitude between -180 and 180),
  -- finished_at is set exactly when a service is Finished.
  add constraint services_finished_at_check check ((status = 4) = (finished_at is not null));

-- Capacity counts: a buddy's services on a day (and in a slot), and a bicycle's or owner's history.
create index services_buddy_day_idx on services (buddy_id, service_date, service_slot_id);
create index services_bicycle_date_idx on services (bicycle_id, service_date);
create index services_owner_date_idx on services (owner_id, service_date);

alter table buddy_work_slots
  add constraint buddy_work_slots_max_check check (max_services_per_day > 0);

alter table expert_requests
  add constraint expert_requests_status_check check (status between 1 and 4),
  add constraint expert_requests_canceled_at_check check ((status = 4) = (canceled_at is not null));

-- Service details (§3): one row per service and service item, with its check status
-- (1 needs repair, 2 adjusted & OK, 3 controlled & OK), a needs-repair flag, notes and images.
create table service_details (
  id bigserial primary key,
  service_id bigint not null references services (id) on delete cascade,
  service_item_id bigint not null references service_items (id) on delete restrict,
  check_status smallint check (check_status between 1 and 3),
  needs_repair boolean not null default false,
  notes text,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (service_id, service_item_id)
);
create index service_details_item_idx on service_details (service_item_id);

create table service_detail_images (
  id bigserial primary key,
  service_detail_id bigint not null references service_details (id) on delete cascade,
  url text not null,
  created_at timestamptz not null default now()
);
create index service_detail_images_detail_idx on service_detail_images (service_detail_id, id);
