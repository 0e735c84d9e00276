-- Subscriptions (ADR 012): closed value sets as constraints, the refunds a cancellation paid out,
-- and the indexes the lists and the dashboard counters need.

alter table subscription_plans
  add constraint subscription_plans_frequency_check check (frequency in ('monthly', 'quarterly', 'yearly')),
  add constraint subscription_plans_prices_check check (price_sek >= 0 and price_gbp >= 0),
  add constraint subscription_plans_bicycles_check check (bicycles >= 1);

alter table subscriptions
  add constraint subscriptions_status_check check (status in ('incomplete', 'trialing', 'active', 'past_due', 'canceled')),
  add constraint subscriptions_currency_check check (currency in ('sek', 'gbp')),
  add constraint subscriptions_period_check check (current_period_end >= current_period_start),
  add constraint subscriptions_amount_check check (amount >= 0),
  add constraint subscriptions_bicycles_check check (bicycles >= 1);
create index subscriptions_created_at_idx on subscriptions (created_at, id);
create index subscriptions_promo_code_id_idx on subscriptions (promo_code_id) where promo_code_id is not null;

-- One row per refund, in minor units (öre, pence): amounts are never rounded twice.
create table subscription_refunds (
  id bigserial primary key,
  subscription_id bigint not null references subscriptions (id) on delete cascade,
  amount_minor bigint not null check (amount_minor > 0),
  currency text not null check (currency in ('sek', 'gbp')),
  unused_days integer not null check (unused_days > 0),
  period_days integer not null check (period_days >= unused_days),
  created_by bigint references users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index subscription_refunds_subscription_idx on subscription_refunds (subscription_id, id);
