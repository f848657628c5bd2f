#!/bin/sh
# Creates the product's roles on a fresh PostgreSQL: accounts_payable, which owns the read state's database, and
# temporal, which creates the Temporal server's two databases. docker compose runs it once from
# /docker-entrypoint-initdb.d; the production-shape suite runs it the same way. Reads APP_POSTGRES_PASSWORD and
# TEMPORAL_POSTGRES_PASSWORD; connects as POSTGRES_USER to POSTGRES_DB (libpq's PG* variables say where).
set -eu
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-postgres}" \
  -v app_password="$APP_POSTGRES_PASSWORD" -v temporal_password="$TEMPORAL_POSTGRES_PASSWORD" <<'SQL'
create role accounts_payable login password :'app_password';
create database accounts_payable owner accounts_payable;
create role temporal login createdb password :'temporal_password';
SQL
