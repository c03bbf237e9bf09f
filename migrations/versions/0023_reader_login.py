"""The analyst role logs in on its own: `termx sql` connects as `termx_reader` instead of switching to it inside
termx's own session. A role switched to with SET ROLE can always switch back to the session user
(`set_config('role', 'postgres', true)` inside a query), so when termx connects as a superuser the query was one
function call away from pg_read_file; with termx_reader as the session user there is nothing to switch back to.

This makes termx_reader LOGIN (and NOINHERIT), and removes any membership of it in another role, so it has no path
to a privileged role. Logging in still needs the server's consent: the embedded server gets a password kept in
$TERMX_HOME/pgpass (termx.storage.embedded); an external server needs a pg_hba.conf rule or a password for
termx_reader (README, docs/lookup.md). Without CREATEROLE nothing changes here (a notice says so).

Downgrade leaves the role as it is: it is shared by every termx database on the server, and the older code (SET
ROLE to termx_reader) works with a LOGIN role too.

Revision ID: 0023_reader_login
Revises: 0022_find_each_tables
"""

from alembic import op

revision = "0023_reader_login"
down_revision = "0022_find_each_tables"
branch_labels = None
depends_on = None

ROLE = "termx_reader"  # also termx.storage.sqlfiles.READER_ROLE


def upgrade() -> None:
    op.execute(f"""
    DO $$
    DECLARE
        granted name;
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') THEN
            RETURN;  -- 0019 could not create it (no CREATEROLE)
        END IF;
        BEGIN
            ALTER ROLE {ROLE} LOGIN NOINHERIT;
            FOR granted IN SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                           WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = '{ROLE}') LOOP
                EXECUTE format('REVOKE %I FROM {ROLE}', granted);
            END LOOP;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'termx: cannot let {ROLE} log in (%); termx sql refuses to run as a privileged user', SQLERRM;
        END;
    END $$;
    """)


def downgrade() -> None:
    pass  # the role is shared with other databases; see the docstring
