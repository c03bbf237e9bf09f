-- database: the statements of the database plumbing in termx/storage (connecting, migrating, restoring a dump,
-- the analyst session of termx sql, the embedded server's roles, binary COPY), run by
-- termx.storage.statements.run_internal("database.<name>", ...) or run_composed (`{field}` slots: identifiers and
-- literals the code builds from constants and generated values, never from user input).

-- name: ping
SELECT 1

-- name: migration_lock
-- one Alembic upgrade at a time (termx.storage.transactions.LOCK_MIGRATE)
SELECT pg_advisory_lock(:ns, 0)

-- name: migration_unlock
SELECT pg_advisory_unlock(:ns, 0)

-- name: table_exists
SELECT to_regclass(:t)

-- name: schema_versions
SELECT version_num FROM termx.alembic_version

-- name: schema_exists
SELECT to_regnamespace(:s)

-- name: server_version
SHOW server_version_num

-- name: role_exists
SELECT 1 FROM pg_roles WHERE rolname = :r

-- name: create_reader
-- termx's analyst role as migrations 0019 and 0023 make it: LOGIN NOINHERIT, a member of nothing
CREATE ROLE {role} LOGIN NOINHERIT

-- name: reader_password
-- the analyst role of the embedded server, with a SCRAM verifier (never the password) made by the client
ALTER ROLE {role} LOGIN NOINHERIT PASSWORD {verifier}

-- name: create_reader_password
CREATE ROLE {role} LOGIN NOINHERIT PASSWORD {verifier}

-- name: own_password
-- fed to `postgres --single` when the embedded cluster's pgpass file is lost: termx's own role gets a new password
ALTER ROLE {role} PASSWORD {password};

-- name: read_only
SET TRANSACTION READ ONLY

-- name: analyst_session
-- One round trip at the start of each analyst transaction (termx.storage.sqlfiles): the roles the session user
-- belongs to; whether it can read or write server files or run programs, directly or through a role it may SET ROLE
-- to (a superuser can); and, for termx's own user standing in for the reader, a switch to the reader role :reader
-- where it is a member. It also has the server check every :interval that termx is still there (PostgreSQL 14+).
SELECT (SELECT string_agg(g.rolname, ', ') FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
        WHERE m.member = r.oid) AS member_of,
       r.rolsuper OR pg_has_role(r.oid, 'pg_read_server_files', 'MEMBER')
           OR pg_has_role(r.oid, 'pg_write_server_files', 'MEMBER')
           OR pg_has_role(r.oid, 'pg_execute_server_program', 'MEMBER') AS privileged,
       (SELECT set_config('role', t.rolname, true) FROM pg_roles t
        WHERE t.rolname = :reader AND pg_has_role(r.oid, t.oid, 'MEMBER')) AS switched,
       (SELECT set_config('client_connection_check_interval', :interval, true)
        WHERE current_setting('server_version_num')::int >= 140000) AS checks_client
FROM pg_roles r WHERE r.rolname = session_user

-- name: copy_rows
-- every writer's one way to bulk-load rows (termx.storage.copyrows.copy_binary): `{table}` and `{columns}` are
-- names the code chooses
COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)
