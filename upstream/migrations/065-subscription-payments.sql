-- Subscription payments (ADR 019): a refund is a share of what was paid for a period, never of a period
-- nobody paid for. Activating a subscription is not a payment; only the payment provider (here: the
-- consumer app's billing, the demo seed, the tests) writes these rows.
create table subscription_payments (
  id bigserial primary key,
  subscription_id bigint not null references subscriptions (id) on delete cascade,
  period_start date not null,
  period_end date not null,
  amount_minor bigint not null check (amount_minor > 0),
  currency text not null check (currency in ('sek', 'gbp')),
  paid_at timestamptz not null default now(),
  -- provider: a real payment; backfill: a period that was active when this table arrived; demo: seed data.
  source text not null check (source in ('provider', 'backfill', 'demo')),
  -- The payment provider's own id of the charge, to reconcile with its books.
  reference text check (reference is null or length(reference) <= 200),
  created_at timestamptz not null default now(),
  constraint subscription_payments_period_check check (period_end > period_start),
  -- A period is paid once: a provider retrying its notification cannot make it refundable twice.
  constraint subscription_payments_period_key unique (subscription_id, period_start, period_end)
);

-- Each refund says which payment it gives back (null for refunds made before payments were recorded).
alter table subscription_refunds add column payment_id bigint references subscription_payments (id) on delete restrict;
create index subscription_refunds_payment_idx on subscription_refunds (payment_id) where payment_id is not null;

-- Until now an active subscription was taken to have paid its current period (ADR 012); keep refunding
-- those periods as before. Trials, past-due, incomplete and canceled subscriptions had nothing paid.
insert into subscription_payments (subscription_id, period_start, period_end, amount_minor, currency, paid_at, source)
select id, current_period_start, current_period_end, (amount * 100)::bigint, currency, current_period_start, 'backfill'
  from subscriptions
 where status = 'active' and amount > 0 and current_period_end > current_period_start;
