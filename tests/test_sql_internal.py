"""sql/internal/*.sql: termx's own statements by name (termx.storage.statements.run_internal), one parameter style."""

from __future__ import annotations

import re
from pathlib import Path

from termx.storage.sqlfiles import list_sql, sql_dir
from termx.storage.statements import _pyformat, internal_statements

REF_RE = re.compile(r'(?:run_internal|run_composed)\(\w+(?:\[0\])?, "(\w+)\.(\w+)"'
                    r'|internal_statements\("(\w+)"\)\["(\w+)"\]|composed\("(\w+)\.(\w+)"')


def test_every_reference_in_the_code_names_a_statement() -> None:
    package = Path(__file__).parents[1] / "termx"
    refs = {(m[0] or m[2] or m[4], m[1] or m[3] or m[5]) for p in package.rglob("*.py")
            for m in REF_RE.findall(p.read_text())}
    assert len(refs) >= 20
    for group, name in refs:
        assert name in internal_statements(group), f"{group}.{name}"


def test_statements_are_named_once_without_comments_and_not_analyst_queries() -> None:
    for path in (sql_dir() / "internal").glob("*.sql"):
        text = path.read_text(encoding="utf-8")
        statements = internal_statements(path.stem)
        assert len(statements) == len(re.findall(r"^-- name:", text, flags=re.M)), path.name
        assert all(s and "--" not in s and "%s" not in s for s in statements.values()), path.name
    assert all(q.path.parent == sql_dir() for q in list_sql())


def test_named_parameters_become_psycopg_ones_and_casts_and_percents_survive() -> None:
    assert _pyformat("SELECT (p->>'n')::integer, 'a%' FROM t WHERE id = ANY(:ids) AND x = :x") == \
        "SELECT (p->>'n')::integer, 'a%%' FROM t WHERE id = ANY(%(ids)s) AND x = %(x)s"


def test_the_partition_life_cycle_names_statements_that_exist() -> None:
    from termx.storage.partitions import PARTITIONED

    statements = internal_statements("partitions")
    for spec in PARTITIONED:
        for name in (spec.create, spec.copy, *(s for group in spec.indexes for s in group)):
            assert name in statements, f"{spec.parent}: {name}"
