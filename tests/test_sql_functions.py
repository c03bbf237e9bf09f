"""sql/functions/*.sql: applied by migrations, re-appliable, kept out of `termx sql --list`, and inlined where the
term rankings rely on it."""

from __future__ import annotations

import re

import sqlalchemy as sa

from termx.storage.sqlfiles import apply_function_file, function_file, list_sql, sql_dir

DEFS = sa.text("SELECT p.oid::regprocedure::text, pg_get_functiondef(p.oid), obj_description(p.oid, 'pg_proc') "
               "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'termx' ORDER BY 1")


def _topics() -> list[str]:
    return sorted(p.stem for p in (sql_dir() / "functions").glob("*.sql"))


def test_function_files_only_create_or_replace_functions() -> None:
    assert {"lookup", "measures", "terms"} <= set(_topics())
    for topic in _topics():
        text = function_file(topic).read_text(encoding="utf-8")
        statements = re.findall(r"^(?:CREATE|ALTER|DROP|INSERT|UPDATE|DELETE)\b[^\n]*", text, flags=re.M)
        assert statements and all(s.startswith("CREATE OR REPLACE FUNCTION termx.") for s in statements), topic


def test_function_files_are_not_analyst_queries() -> None:
    names = {q.name for q in list_sql()}
    assert not names & set(_topics())
    assert all(q.path.parent == sql_dir() for q in list_sql())


def test_reapplying_every_file_changes_nothing(engine) -> None:  # type: ignore[no-untyped-def]
    with engine.connect() as conn:
        before = conn.execute(DEFS).all()
        for topic in _topics():
            apply_function_file(conn, topic)
        after = conn.execute(DEFS).all()
        conn.rollback()
    assert len(before) >= 21
    assert after == before


def test_term_candidates_is_inlined_into_every_ranking(engine) -> None:  # type: ignore[no-untyped-def]
    values = {"corpus": "no-such-corpus", "reference": "no-such-reference", "min_df": 3, "min_len": 2,
              "max_len": 40, "top": 10}
    rankings = [q for q in list_sql() if q.name.startswith("terms_")]
    assert len(rankings) == 6
    with engine.connect() as conn:
        for query in rankings:
            assert "termx.ranked_terms(" in query.statement, query.name  # whose body reads term_candidates
            plan = "\n".join(conn.execute(sa.text("EXPLAIN " + query.statement),
                                          {p: values[p] for p in query.params}).scalars())
            assert "Function Scan" not in plan, f"{query.name}: term_candidates was not inlined\n{plan}"
            assert "termx.candidate" in plan or "on candidate" in plan, plan
    assert "termx.term_candidates(" in function_file("ranking").read_text(encoding="utf-8")
    assert function_file("ranking").read_text(encoding="utf-8").count("termx.ridf(") == 1


def test_term_candidates_keeps_the_c_collation_of_term(engine) -> None:  # type: ignore[no-untyped-def]
    with engine.connect() as conn:
        returns = conn.execute(sa.text("SELECT prorettype::regtype::text FROM pg_proc "
                                       "WHERE oid = 'termx.term_candidates(text, integer, integer, integer)'"
                                       "::regprocedure")).scalar_one()
        collation = conn.execute(sa.text("SELECT pg_collation_for((NULL::termx.term_candidate).term)")).scalar_one()
    assert returns == "termx.term_candidate"
    assert collation == '"C"'
