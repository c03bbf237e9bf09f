"""A role for analyst queries: `termx sql` runs its one read-only statement as `termx_reader`, a NOLOGIN role that
may read the termx schema and nothing else, so a hostile query file cannot use the connecting user's server-side
privileges (a superuser's pg_read_file, pg_ls_dir, lo_export, server settings).

The role is cluster-wide and shared by every termx database on the server; it is created when missing (which
needs CREATEROLE; without it nothing is created and `termx sql` runs as the connecting user, as before). Downgrade
revokes this database's grants and leaves the role, which may serve other databases.

Revision ID: 0019_sql_reader
Revises: 0018_related
"""

from alembic import op

revision = "0019_sql_reader"
down_revision = "0018_related"
branch_labels = None
depends_on = None

ROLE = "termx_reader"  # also termx.storage.sqlfiles.READER_ROLE


def upgrade() -> None:
    op.execute(f"""
    DO $$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') THEN
            BEGIN
                CREATE ROLE {ROLE} NOLOGIN NOINHERIT;
            EXCEPTION
                WHEN duplicate_object OR unique_violation THEN NULL;  -- another database's migration made it
                WHEN insufficient_privilege THEN
                    RAISE NOTICE 'termx: no CREATEROLE privilege; termx sql runs as %', current_user;
                    RETURN;
            END;
        END IF;
        IF NOT pg_has_role(current_user, '{ROLE}', 'MEMBER') THEN
            BEGIN
                EXECUTE format('GRANT {ROLE} TO %I', current_user);
            EXCEPTION WHEN insufficient_privilege THEN
                RAISE NOTICE 'termx: cannot grant {ROLE} to %; termx sql runs as that user', current_user;
                RETURN;
            END;
        END IF;
        GRANT USAGE ON SCHEMA termx TO {ROLE};
        GRANT SELECT ON ALL TABLES IN SCHEMA termx TO {ROLE};
        ALTER DEFAULT PRIVILEGES IN SCHEMA termx GRANT SELECT ON TABLES TO {ROLE};
    END $$;
    """)


def downgrade() -> None:
    op.execute(f"""
    DO $$
    BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') THEN
            ALTER DEFAULT PRIVILEGES IN SCHEMA termx REVOKE SELECT ON TABLES FROM {ROLE};
            REVOKE SELECT ON ALL TABLES IN SCHEMA termx FROM {ROLE};
            REVOKE USAGE ON SCHEMA termx FROM {ROLE};
        END IF;
    END $$;
    """)
