-- §5 "Rating: numeric, 1 to 5": the customer's rating of a service, which only a finished service
-- has (ADR 023). The definition checks both rules; the constraints keep any other writer to them.
alter table services
  add column rating integer,
  add constraint services_rating_check check (rating between 1 and 5),
  add constraint services_rating_finished_check check (rating is null or status = 4);

create index services_rating_idx on services (rating, id);
