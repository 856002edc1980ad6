-- CA Manager: one Postgres role per service, each the owner of its own schema and of nothing
-- else (docs/security.md, "Database roles"). Run it as a superuser (or a role with CREATEROLE
-- that owns the database) in the service database, with psql:
--
--   psql "$ADMIN_DATABASE_URL" -v ON_ERROR_STOP=1 \
--     -v gateway_password=… -v issuance_password=… -v revocation_password=… -v ocsp_password=… -v acme_password=… \
--     -v webhooks_password=… \
--     -f deploy/postgres/init-roles.sql
--
-- Optional: -v role_prefix=ca_ names the roles ca_gateway, … (the schemas keep their names).
-- It can be run again: roles and schemas are created when missing, passwords are (re)set, and
-- a schema created earlier by another role is handed, with its tables, sequences and functions,
-- to its service's role.

\if :{?role_prefix}
\else
  \set role_prefix ''
\endif

SET client_min_messages = warning;

CREATE TEMPORARY TABLE ca_service_roles (schema_name text, role_name text, password text);
INSERT INTO ca_service_roles VALUES
  ('gateway', :'role_prefix' || 'gateway', :'gateway_password'),
  ('issuance', :'role_prefix' || 'issuance', :'issuance_password'),
  ('revocation', :'role_prefix' || 'revocation', :'revocation_password'),
  ('ocsp', :'role_prefix' || 'ocsp', :'ocsp_password'),
  ('acme', :'role_prefix' || 'acme', :'acme_password'),
  ('webhooks', :'role_prefix' || 'webhooks', :'webhooks_password');

-- Nobody but the owner creates schemas or objects in public.
SELECT format('REVOKE CREATE, TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()) \gexec
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

SELECT format('CREATE ROLE %I', role_name) FROM ca_service_roles
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) \gexec
-- Login only: no superuser, no role or database creation, no inheritance of other roles.
SELECT format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD %L',
              role_name, password) FROM ca_service_roles \gexec
SELECT format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), role_name)
  FROM ca_service_roles \gexec

SELECT format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', schema_name, role_name)
  FROM ca_service_roles \gexec
-- Trigram matching for the certificate inventory's substring search, and btree_gin to hold the
-- tenant in the same index (issuance's migrations build it when both are there; a service role
-- may not create extensions itself).
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public;
SELECT format('ALTER SCHEMA %I OWNER TO %I', schema_name, role_name) FROM ca_service_roles \gexec
SELECT format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', schema_name) FROM ca_service_roles \gexec

-- Objects an earlier install created in the schema as another role.
SELECT format('ALTER %s %I.%I OWNER TO %I',
              CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' ELSE 'TABLE' END,
              n.nspname, c.relname, r.role_name)
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN ca_service_roles r ON r.schema_name = n.nspname
  WHERE c.relkind IN ('r', 'p', 'v', 'S') AND pg_get_userbyid(c.relowner) <> r.role_name
    AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d
             WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))) \gexec
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, r.role_name)
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN ca_service_roles r ON r.schema_name = n.nspname
  WHERE pg_get_userbyid(p.proowner) <> r.role_name \gexec

DROP TABLE ca_service_roles;
