"""Fewer remote scans per look-up on foreign shards (issue 30, docs/scale-out.md "Where the limits are now"):
sql/functions/shards.sql is re-applied. termx._find_each tests a foreign shard's n-gram filter before its probe (a
pattern the filter rules out is not probed there), and on the exact path of a foreign shard bounds the binary
searches by the class of the prefix the pattern shares with the probe's row, not with the row before it: that
class is the probe row's own when the prefix is one of its members, else one statement. A local shard's prefix
class is taken from the probe row too when the prefix is its member. Every answer is the same (the interval only
bounds the searches). The downgrade restores 0027's functions from sql/functions/replaced/.

Revision ID: 0028_remote_scans
Revises: 0027_servers
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0028_remote_scans"
down_revision = "0027_servers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_function_file(op.get_bind(), "shards")


def downgrade() -> None:
    apply_function_file(op.get_bind(), "replaced/shards_before_0028_remote_scans")
