#!/bin/sh
# Creates, or brings up to date, the Temporal server's two PostgreSQL databases (persistence and visibility).
# docker compose runs it in temporalio/admin-tools; the production-shape suite runs it with the same tool built from
# source. Idempotent: run it again after upgrading the server.
#
# Reads SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD (the tool's own variables), DBNAME, VISIBILITY_DBNAME and
# SCHEMA_DIR (the server's schema/postgresql/v12); TEMPORAL_SQL_TOOL names the tool when it is not on PATH.
set -eu
tool="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
export SQL_PLUGIN="${SQL_PLUGIN:-postgres12}"

for pair in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  database="${pair%%:*}"
  schema="${pair##*:}"
  # Refused when it exists already, which is what a second run finds.
  "$tool" --database "$database" create-database 2>/dev/null || echo "database $database exists"
  "$tool" --database "$database" setup-schema -v 0.0
  "$tool" --database "$database" update-schema -d "$SCHEMA_DIR/$schema/versioned"
done
