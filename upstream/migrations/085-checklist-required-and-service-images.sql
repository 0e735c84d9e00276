-- ADR 043: a service item may be required (a service is not finished while one is unanswered), and a
-- service has photos of its own (§9 upload kind service_image), beside the checklist items' images.
alter table service_items add column is_required boolean not null default false;
create index service_items_is_required_idx on service_items (is_required, id);

create table service_images (
  id bigserial primary key,
  service_id bigint not null references services (id) on delete cascade,
  url text not null,
  created_at timestamptz not null default now()
);
create index service_images_service_idx on service_images (service_id, id);
