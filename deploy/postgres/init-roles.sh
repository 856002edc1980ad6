#!/bin/sh
# docker-compose.yml: run by the postgres image on its first start (empty data volume), from
# /docker-entrypoint-initdb.d. Creates the per-service roles of init-roles.sql (ca_gateway, ...)
# in database $POSTGRES_DB with the passwords docker-compose.yml passes.
set -eu
psql -v ON_ERROR_STOP=1 -q --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v role_prefix=ca_ \
  -v gateway_password="$CA_PASSWORD_GATEWAY" \
  -v issuance_password="$CA_PASSWORD_ISSUANCE" \
  -v revocation_password="$CA_PASSWORD_REVOCATION" \
  -v ocsp_password="$CA_PASSWORD_OCSP" \
  -v acme_password="$CA_PASSWORD_ACME" \
  -v webhooks_password="$CA_PASSWORD_WEBHOOKS" \
  -f /ca-manager/init-roles.sql
