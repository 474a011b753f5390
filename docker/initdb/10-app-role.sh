#!/bin/sh
# First start of the database only: the login role the app runs as. It gets its
# table rights from `manage.py db_app_role` (run by the migrate service).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE pairs_app LOGIN PASSWORD '${APP_DB_PASSWORD}';
GRANT CONNECT ON DATABASE ${POSTGRES_DB} TO pairs_app;
SQL
