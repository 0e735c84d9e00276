-- Languages and competencies a user (buddy) holds (§3 User sub-collections).
create table user_languages (
  user_id bigint not null references users (id) on delete cascade,
  language_id bigint not null references languages (id) on delete restrict,
  primary key (user_id, language_id)
);
create table user_competencies (
  user_id bigint not null references users (id) on delete cascade,
  competence_id bigint not null references competencies (id) on delete restrict,
  primary key (user_id, competence_id)
);
create index users_first_name_idx on users (first_name, id);
create index users_email_idx on users (email, id);
