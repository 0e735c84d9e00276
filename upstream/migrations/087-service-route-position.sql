-- A stop's place in its buddy's day as applied from Today's route suggestion (ADR 044): 1, 2, … in visiting
-- order; 0 while none was applied, when the day goes by time. The orderRoute action writes it; a change of the
-- stop's buddy, day, slot or time sets it back to 0.
alter table services add column route_position integer not null default 0;
