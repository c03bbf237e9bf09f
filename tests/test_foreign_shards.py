"""Foreign shards (issue 30, docs/scale-out.md "When one PostgreSQL server is not enough"): the same documents
indexed locally (a build, then --append) and over two storage servers (the build's class rows on one, the
append's on the other, attached as postgres_fdw foreign partitions) answer every look-up equal, field by field,
and equal to brute force; a drop while a server is down is finished by the next command that reaches it; while a
server is down, what needs it names the server and the corpus's shards there in one line."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import CorpusNotFound, ServerUnreachable, database_error_line
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.lookup import stats
from termx.storage.corpora import drop_corpus
from termx.storage.executors import pool_runner
from termx.storage.index_loader import load_shards
from termx.storage.servers import add_server, list_servers, remove_server
from termx.storage.shard_task import ShardResult, ShardTask
from termx.storage.shards import save_shards
from tests.pgcluster import TestServer

from .oracle import df_k, substring_occurrences, token_lists
from .test_lookup import as_pattern
from .test_sql_shards import _rows, _texts

KMAX = 3
DB = "foreign_t"  # this module's database on the session's two test servers (conftest.pg_pair)
IN_PROCESS = pool_runner(1)
runner = CliRunner()


@pytest.fixture(scope="module")
def storage(engine: Engine, pg_pair: list[TestServer]) -> Iterator[list[TestServer]]:
    """The session's two test servers (conftest.pg_pair), each with a database DB, registered on the session's
    coordinator as `fa` and `fb` (removed afterwards)."""
    for name, server in zip(("fa", "fb"), pg_pair, strict=True):
        add_server(engine, name, server.create_database(DB))
    try:
        yield pg_pair
    finally:
        rows = list_servers(engine)
        for corpus in {c for row in rows for c in row["corpora"]}:  # what a failed test left
            drop_corpus(engine, corpus)
        for row in rows:
            remove_server(engine, row["name"])


def _pair(engine: Engine, docs: list[Document], cut: int, unit: Unit, min_freq: int = 2) -> tuple[str, str]:
    """The same documents as a local corpus and a foreign one: docs[:cut] built (2 shards), docs[cut:] appended;
    class rows for freq >= `min_freq` only (the rarer classes computed by the exact path)."""
    names = []
    for servers in ((None, None), ("fa", "fb")):
        name = f"f-{uuid.uuid4().hex[:10]}"
        head = [docs[: cut // 2 + 1], docs[cut // 2 + 1: cut]] if cut > 1 else [docs[:cut]]
        save_shards(engine, name, [g for g in head if g], unit, KMAX, runner=IN_PROCESS, server=servers[0],
                    min_freq=min_freq)
        save_shards(engine, name, [docs[cut:]], unit, KMAX, runner=IN_PROCESS, append=True, server=servers[1],
                    min_freq=min_freq)
        names.append(name)
    return names[0], names[1]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(unit=st.sampled_from(list(Unit)), data=st.data(), min_freq=st.sampled_from([2, 4]))
def test_foreign_shards_answer_like_local_ones(engine: Engine, storage: list[TestServer], unit: Unit,
                                               data: st.DataObject, min_freq: int) -> None:
    texts = data.draw(_texts(unit, min_docs=3))
    cut = data.draw(st.integers(1, len(texts) - 1))
    docs = [Document(f"d{n}", t) for n, t in enumerate(texts)]
    local, remote = _pair(engine, docs, cut, unit, min_freq)
    placed = _rows(engine, "SELECT s.shard_no, s.server FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id "
                           "WHERE c.name = :n ORDER BY s.shard_no", n=remote)
    assert {r["server"] for r in placed} == {"fa", "fb"} and placed[-1]["server"] == "fb"
    occurrences = substring_occurrences(token_lists(texts, unit))
    subs = [s for s in occurrences if as_pattern(s, unit) is not None]
    patterns = [as_pattern(s, unit) for s in subs[:60]] + (["zz", "q"] if unit is not Unit.word else ["zz"])
    query = "SELECT * FROM termx.stats(:c, CAST(:p AS text[]))"
    assert _rows(engine, query, c=remote, p=patterns) == _rows(engine, query, c=local, p=patterns)
    for pattern in patterns[:min(12, len(subs))]:  # occurring patterns (a longer one is an error in both)
        q = "SELECT * FROM termx.find_class_shards(:c, :p)"
        assert _rows(engine, q, c=remote, p=pattern) == _rows(engine, q, c=local, p=pattern)
        q = "SELECT * FROM termx.concordance(:c, :p, 2, 3, 1000)"
        assert _rows(engine, q, c=remote, p=pattern) == _rows(engine, q, c=local, p=pattern)
    found = patterns[:len(subs[:60])]  # the library raises on a pattern longer than every document
    library = stats(load_shards(engine, remote), found)
    assert library == stats(load_shards(engine, local), found)
    for sub, row in zip(subs[:60], _rows(engine, query, c=remote, p=patterns), strict=False):
        occ = sorted(occurrences[sub])
        assert (row["freq"], row["df"]) == (len(occ), df_k(occ, KMAX)), (sub, row)
    for name in (local, remote):
        drop_corpus(engine, name)


def _remote_tables(server: TestServer) -> list[str]:
    with psycopg.connect(server.url(DB)) as conn:
        return [r[0] for r in conn.execute("SELECT relname FROM pg_class WHERE relnamespace = "
                                           "to_regnamespace('termx_shards') ORDER BY relname")]


def test_cli_index_append_look_ups_and_drop(engine: Engine, db_env: str, storage: list[TestServer],
                                            tmp_path: Path) -> None:
    """`termx index --server`, `--append --server`: the commands answer as for local shards; `servers` shows the
    shards and refuses removal; a drop while a server is down is finished once it is back."""
    fa, fb = storage
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for n, text in enumerate(["Hi_Ho_Hi_Ho it is off to work we go", "Hi_Ho Hi", "Hi there, Ho there"]):
        (tmp_path / "a" / f"doc{n}.txt").write_text(text)
    for n, text in enumerate(["to be or not to be", "Ho Ho Ho, off we go to work"]):
        (tmp_path / "b" / f"doc{n}.txt").write_text(text)

    def run(*args: str) -> str:
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.stderr
        return result.stdout

    for corpus, servers in (("cli-local", ([], [])), ("cli-foreign", (["--server", "fa"], ["--server", "fb"]))):
        run("index", str(tmp_path / "a"), "--corpus", corpus, "--shard-size", "20", "-q", *servers[0])
        run("index", str(tmp_path / "b"), "--corpus", corpus, "--append", "-q", *servers[1])
    assert _remote_tables(fa) and _remote_tables(fb)
    for args in (["stats", "{c}", "Ho", "Hi_Ho", "o", "xyz"], ["class", "{c}", "Ho"], ["concordance", "{c}", "Ho"],
                 ["terms", "{c}", "--rank", "freq", "--min-df", "1", "--min-len", "1"]):
        outputs = [run(*(a.format(c=c) for a in args), "--format", "json") for c in ("cli-local", "cli-foreign")]
        assert json.loads(outputs[0]) == json.loads(outputs[1]), args
    listed = {r["name"]: r for r in json.loads(run("servers", "list", "--format", "json"))}
    assert listed["fa"]["corpora"] == ["cli-foreign"] and listed["fa"]["shards"] >= 2
    assert listed["fb"]["shards"] == 1
    refused = runner.invoke(app, ["servers", "remove", "fb"])
    assert refused.exit_code == 1 and "'cli-foreign'" in refused.stderr and len(refused.stderr.splitlines()) == 1

    fb.stop()
    try:
        with pytest.raises(sa.exc.OperationalError, match="termx_fb"):
            _rows(engine, "SELECT * FROM termx.stats('cli-foreign', 'Ho')")
        assert _rows(engine, "SELECT * FROM termx.stats('cli-local', 'Ho')")  # other corpora keep working
        run("drop", "cli-foreign")  # the name goes now; fb's table waits for fb
        assert "cli-foreign" not in run("corpora")
        assert _remote_tables(fa) == []
    finally:
        fb.start()
    run("drop", "cli-local")  # a writer's garbage collection reaches fb and finishes the drop
    assert _remote_tables(fb) == []
    assert {r["name"]: r["shards"] for r in json.loads(run("servers", "list", "--format", "json"))} == \
        {"fa": 0, "fb": 0}


def _cli(*args: str) -> str:
    """A termx command's stdout (it must succeed)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_cli_index_replace_moves_a_corpus_to_another_server(engine: Engine, db_env: str, storage: list[TestServer],
                                                            tmp_path: Path) -> None:
    """`termx index --replace --server fb` of a corpus whose shards are on fa: the old version's tables on fa are
    dropped, the new shards' tables are on fb, and `stats`, `concordance` and the stored classes equal those of the
    same documents indexed locally."""
    fa, fb = storage
    for part, texts in (("a", ["Hi_Ho_Hi_Ho it is off", "Hi_Ho Hi"]),
                        ("b", ["to be or not to be", "Ho Ho Ho, off we go to work", "Hi there, Ho there"])):
        (tmp_path / part).mkdir()
        for n, text in enumerate(texts):
            (tmp_path / part / f"doc{n}.txt").write_text(text)
    moved, local = f"mv-{uuid.uuid4().hex[:8]}", f"mvl-{uuid.uuid4().hex[:8]}"
    fa_before, fb_before = _remote_tables(fa), _remote_tables(fb)
    store = ("--shard-size", "20", "--store-min-freq", "2", "-q")
    _cli("index", str(tmp_path / "a"), "--corpus", moved, *store, "--server", "fa")
    shards = "SELECT s.id, s.server FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = :n " \
             "ORDER BY s.shard_no"
    old = _rows(engine, shards, n=moved)
    assert {r["server"] for r in old} == {"fa"} and {f"class_{r['id']}" for r in old} <= set(_remote_tables(fa))
    _cli("index", str(tmp_path / "b"), "--corpus", moved, *store, "--replace", "--server", "fb")
    _cli("index", str(tmp_path / "b"), "--corpus", local, *store)
    new = _rows(engine, shards, n=moved)
    assert len(new) == 3 and {r["server"] for r in new} == {"fb"}
    assert _remote_tables(fa) == fa_before  # the old version's tables are dropped on fa
    ids = {f"class_{r['id']}" for r in new}
    added = set(_remote_tables(fb)) - set(fb_before)  # the new shards' tables and their indexes
    assert ids <= added and all(t in ids or t.startswith(tuple(f"{i}_" for i in ids)) for t in added)
    for args in (["stats", "{c}", "Ho", "Hi_Ho", "o", "to be", "xyz"], ["concordance", "{c}", "Ho"]):
        outputs = [_cli(*(a.format(c=c) for a in args), "--format", "json") for c in (local, moved)]
        assert json.loads(outputs[0]) == json.loads(outputs[1]), args
    rows = "SELECT s.shard_no, k.i, k.j, k.lbl, k.sil, k.freq, k.df, k.rep FROM termx.class k JOIN termx.shard s " \
           "ON s.id = k.shard_id JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = :n ORDER BY 1, 2, 3"
    assert _rows(engine, rows, n=moved) == _rows(engine, rows, n=local) != []
    listed = {r["name"]: r for r in list_servers(engine)}
    assert moved not in listed["fa"]["corpora"] and listed["fb"]["corpora"] == [moved]
    for name in (moved, local):
        drop_corpus(engine, name)
    assert _remote_tables(fa) == fa_before and _remote_tables(fb) == fb_before


def test_a_down_server_is_named_with_its_shards(engine: Engine, db_env: str, database_url: str,
                                                 storage: list[TestServer]) -> None:
    """fb down: what reads its partitions (the look-up of the input's characters in a byte corpus before
    segmenting, through `termx segment`, `Corpus.segment` and HTTP /segment) says in one line that storage server
    'fb' is unreachable and which shards of the corpus it holds (not the one on fa), without fb's password: exit
    1 / ServerUnreachable / 503. Look-ups on the loaded shards of that corpus, and the same commands on a corpus
    whose shards are all on fa, keep answering."""
    client_module = pytest.importorskip("fastapi.testclient")
    import termx
    from termx.serve import create_app

    fa, fb = storage
    down, up = f"down-{uuid.uuid4().hex[:8]}", f"up-{uuid.uuid4().hex[:8]}"
    docs = [Document(f"d{n}", t) for n, t in enumerate(["Hi_Ho_Hi_Ho", "Hi_Ho Hi", "Ho there"])]
    save_shards(engine, down, [docs[:1], docs[1:2]], Unit.byte, KMAX, runner=IN_PROCESS, server="fb")
    save_shards(engine, down, [docs[2:]], Unit.byte, KMAX, runner=IN_PROCESS, append=True, server="fa")
    save_shards(engine, up, [docs], Unit.byte, KMAX, runner=IN_PROCESS, server="fa")
    assert _rows(engine, "SELECT s.shard_no, s.server FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id "
                         "WHERE c.name = :n ORDER BY s.shard_no", n=down) == \
        [{"shard_no": 0, "server": "fb"}, {"shard_no": 1, "server": "fb"}, {"shard_no": 2, "server": "fa"}]
    named = f"storage server 'fb' is unreachable (corpus '{down}', shards 0, 1)"
    client = client_module.TestClient(create_app(database_url), base_url="http://127.0.0.1")
    fb.stop()
    try:
        result = runner.invoke(app, ["segment", down], input="Hi Ho\n")
        assert result.exit_code == 1, (result.stdout, result.stderr)
        assert result.stderr.startswith(f"Error: {named}: connection to server at "), result.stderr
        assert len(result.stderr.splitlines()) == 1 and fb.password not in result.stderr
        with termx.open(down, db=database_url) as corpus, pytest.raises(ServerUnreachable) as raised:
            list(corpus.segment(["Hi Ho"]))
        assert raised.value.what == named and fb.password not in str(raised.value)
        answer = client.get(f"/segment?corpus={down}&line=Hi+Ho")
        assert (answer.status_code, answer.json()) == (503, {"error": f"{named} (the server's log says why)"})
        stats = runner.invoke(app, ["stats", down, "Ho", "--format", "json"])  # the loaded shards: the coordinator's
        assert stats.exit_code == 0 and json.loads(stats.stdout)[0]["freq"] == 4, stats.stderr
        other = runner.invoke(app, ["segment", up], input="Hi Ho\n")
        assert other.exit_code == 0 and other.stdout.strip(), other.stderr
        assert client.get(f"/segment?corpus={up}&line=Hi+Ho").status_code == 200
        assert _rows(engine, "SELECT freq FROM termx.stats(:c, 'Ho')", c=up) == [{"freq": 4}]
        with pytest.raises(sa.exc.OperationalError, match="termx_fb") as raw:  # the SQL function, outside termx
            _rows(engine, "SELECT freq FROM termx.stats(:c, 'Ho')", c=down)
        line = database_error_line(raw.value)  # what the CLI and HTTP say of it: the server, if not the shards
        assert line is not None and line.startswith("storage server 'fb' is unreachable: connection to server at ")
    finally:
        fb.start()
    with termx.open(down, db=database_url) as corpus:
        assert list(corpus.segment(["Hi Ho"]))
    assert client.get(f"/segment?corpus={down}&line=Hi+Ho").status_code == 200  # its pool reaches fb again
    for name in (down, up):
        drop_corpus(engine, name)


def _state(engine: Engine, name: str) -> tuple[object, ...]:
    """What a failed build must leave as it was: the corpus's row, its shards, and termx's tables."""
    corpus = _rows(engine, "SELECT id, tokens, documents, classes, created_at FROM termx.corpus WHERE name = :n",
                   n=name)
    shards = _rows(engine, "SELECT s.id, s.shard_no, s.server FROM termx.shard s JOIN termx.corpus c "
                           "ON c.id = s.corpus_id WHERE c.name = :n ORDER BY s.id", n=name)
    tables = _rows(engine, "SELECT relname, relkind FROM pg_class WHERE relnamespace = 'termx'::regnamespace "
                           "AND relname ~ '^class_[0-9]+$' ORDER BY relname")
    return corpus, shards, tables


@pytest.mark.parametrize("point", ["copy_classes", "create_index", "copy_documents", "store_returned", "swap"])
def test_a_failed_foreign_append_leaves_every_server_as_it_was(engine: Engine, storage: list[TestServer],
                                                               monkeypatch: pytest.MonkeyPatch, point: str) -> None:
    """An --append whose worker fails mid-COPY or while indexing on the storage server, whose returned shard the
    coordinator fails to write (mid-COPY of its documents, or after its arrays), or whose swap fails: the corpus,
    the coordinator's tables and both storage servers' tables are as before, also after the next writer's garbage
    collection, and its look-ups answer the same."""
    fa, fb = storage
    name = f"fail-{uuid.uuid4().hex[:8]}"
    docs = [Document(f"d{n}", t) for n, t in enumerate(["Hi_Ho_Hi_Ho", "Hi_Ho Hi", "Ho there"])]
    save_shards(engine, name, [docs[:2], docs[2:]], Unit.byte, KMAX, runner=IN_PROCESS, server="fa")
    before = (_state(engine, name), _remote_tables(fa), _remote_tables(fb))
    query = "SELECT * FROM termx.stats(:c, CAST(:p AS text[]))"
    answers = _rows(engine, query, c=name, p=["Ho", "Hi_", "o"])
    monkeypatch.setenv("TERMX_FAULT", f"fail:{point}")
    with pytest.raises(Exception, match=f"fault injected at {point}"):
        save_shards(engine, name, [[Document("e1", "Ho Ho Hi")]], Unit.byte, KMAX, runner=IN_PROCESS, append=True,
                    server="fb")
    monkeypatch.delenv("TERMX_FAULT")
    assert (_state(engine, name), _remote_tables(fa), _remote_tables(fb)) == before
    with pytest.raises(CorpusNotFound):  # a writer: its garbage collection finds nothing more to drop
        drop_corpus(engine, f"absent-{uuid.uuid4().hex[:6]}")
    assert (_state(engine, name), _remote_tables(fa), _remote_tables(fb)) == before
    assert _staged_rows(engine) == 0
    assert _rows(engine, query, c=name, p=["Ho", "Hi_", "o"]) == answers
    drop_corpus(engine, name)
    assert _remote_tables(fa) == [] and _remote_tables(fb) == []


def _staged_rows(engine: Engine) -> int:
    """Documents and index arrays of nameless corpora (what a failed build must not leave)."""
    return int(_rows(engine, "SELECT (SELECT count(*) FROM termx.document d JOIN termx.corpus c ON c.id = d.corpus_id "
                             "WHERE c.name IS NULL) + (SELECT count(*) FROM termx.index_array a JOIN termx.shard s ON "
                             "s.id = a.shard_id JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name IS NULL) AS n")
                [0]["n"])


@pytest.mark.parametrize("point", ["staged", "store_returned"])
def test_kill_9_of_a_foreign_append_is_cleaned_everywhere(engine: Engine, database_url: str,
                                                          storage: list[TestServer], tmp_path: Path,
                                                          point: str) -> None:
    """`termx index --append --server fb` killed (-9) after its shards are stored, before the swap, or while it
    writes the returned shard's documents and arrays: the corpus answers as before, and the next writer's garbage
    collection drops what was staged on the coordinator and fb."""
    fa, fb = storage
    name = f"kill-{uuid.uuid4().hex[:8]}"
    save_shards(engine, name, [[Document("d1", "Hi_Ho_Hi_Ho"), Document("d2", "Ho there")]], Unit.byte, KMAX,
                runner=IN_PROCESS, server="fa")
    before = (_state(engine, name), _remote_tables(fa), _remote_tables(fb))
    (tmp_path / "more.txt").write_text("Ho Ho Hi")
    env = {**os.environ, "TERMX_DATABASE_URL": database_url, "TERMX_FAULT": f"kill:{point}"}
    killed = subprocess.run([sys.executable, "-m", "termx", "index", str(tmp_path / "more.txt"), "--corpus", name,
                             "--append", "--server", "fb", "-q"], env=env, capture_output=True, text=True,
                            timeout=300, check=False)
    assert killed.returncode == -9, killed.stderr
    assert _remote_tables(fb) != []  # staged there, never attached
    with pytest.raises(CorpusNotFound):  # a writer: it collects the garbage first
        drop_corpus(engine, f"absent-{uuid.uuid4().hex[:6]}")
    assert (_state(engine, name), _remote_tables(fa), _remote_tables(fb)) == before
    assert _staged_rows(engine) == 0
    drop_corpus(engine, name)


def test_remove_force_forgets_a_server_gone_for_good(engine: Engine, db_env: str, storage: list[TestServer]) -> None:
    """fb gone: `servers remove fb` is refused naming the corpus; `--force` warns in one line naming it, then drops
    that corpus (its shard on fa too), the coordinator's foreign tables and shard rows of fb, and the registry row;
    a corpus on fa alone keeps answering. (Last in the module: fb is registered again afterwards.)"""
    fa, fb = storage
    gone, kept = f"gone-{uuid.uuid4().hex[:8]}", f"kept-{uuid.uuid4().hex[:8]}"
    docs = [Document(f"d{n}", t) for n, t in enumerate(["Hi_Ho_Hi_Ho", "Hi_Ho Hi", "Ho there"])]
    save_shards(engine, gone, [docs[:2]], Unit.byte, KMAX, runner=IN_PROCESS, server="fb")
    save_shards(engine, gone, [docs[2:]], Unit.byte, KMAX, runner=IN_PROCESS, append=True, server="fa")
    save_shards(engine, kept, [docs], Unit.byte, KMAX, runner=IN_PROCESS, server="fa")
    kept_tables = _remote_tables(fa)
    foreign = "SELECT relname FROM pg_class WHERE relnamespace = 'termx'::regnamespace AND relkind = 'f' " \
              "AND relname ~ '^class_[0-9]+$' ORDER BY relname"
    fb.stop()
    try:
        refused = runner.invoke(app, ["servers", "remove", "fb"])
        assert refused.exit_code == 1 and f"'{gone}'" in refused.stderr
        forced = runner.invoke(app, ["servers", "remove", "fb", "--force"])
        assert forced.exit_code == 0, forced.stderr
        warning = [line for line in forced.stderr.splitlines() if line.startswith("Warning:")]
        assert len(warning) == 1 and "fb" in warning[0] and gone in warning[0] and kept not in warning[0]
        assert [r["name"] for r in list_servers(engine)] == ["fa"]
        assert _rows(engine, "SELECT count(*) AS n FROM termx.shard WHERE server = 'fb'") == [{"n": 0}]
        with pytest.raises(CorpusNotFound):
            load_shards(engine, gone)
        shards_of_kept = _rows(engine, "SELECT 'class_' || s.id AS relname FROM termx.shard s JOIN termx.corpus c "
                                       "ON c.id = s.corpus_id WHERE c.name = :n ORDER BY 1", n=kept)
        assert _rows(engine, foreign) == shards_of_kept  # gone's foreign tables (on fb and on fa) are dropped
        assert [t for t in _remote_tables(fa) if not t.endswith("_idx")] == [r["relname"] for r in shards_of_kept]
        assert set(_remote_tables(fa)) < set(kept_tables)  # gone's table on fa is dropped too
        assert _rows(engine, "SELECT freq FROM termx.stats(:c, 'Ho')", c=kept) == [{"freq": 4}]
        unknown = runner.invoke(app, ["servers", "remove", "fb", "--force"])
        assert unknown.exit_code == 1 and "no server named 'fb'" in unknown.stderr
    finally:
        fb.start()
        if "fb" not in [r["name"] for r in list_servers(engine)]:
            add_server(engine, "fb", fb.url(DB))
    drop_corpus(engine, kept)


def test_remove_drops_the_read_only_role_add_made(engine: Engine, storage: list[TestServer]) -> None:
    """`servers add` makes the storage database's read-only role for `termx sql` (a second registration of the same
    database gives it a new password, which the first's reader mapping takes too); `remove` drops it, except while
    another registered server names the same database (they share it) or a shard's table is left in termx_shards
    there (another coordinator's), or once its comment says it is no longer termx's."""
    fa = storage[0]
    url = fa.create_database("role_t")
    role = "termx_reads_" + hashlib.md5(b"role_t").hexdigest()[:16]

    def roles() -> list[str]:
        with psycopg.connect(fa.url()) as admin:
            return [r[0] for r in admin.execute("SELECT rolname FROM pg_roles WHERE rolname = %s", (role,))]

    try:
        add_server(engine, "fr1", url)
        add_server(engine, "fr2", url)
        assert roles() == [role]
        # fr2's registration gave the shared role a new password: fr1's reader mapping has it too, and it logs in
        passwords = {dict(o.split("=", 1) for o in r["umoptions"])["password"] for r in _rows(
            engine, "SELECT umoptions FROM pg_user_mappings WHERE srvname IN ('termx_fr1', 'termx_fr2') "
                    "AND usename = 'termx_reader'")}
        assert len(passwords) == 1
        psycopg.connect(f"postgresql://{role}:{passwords.pop()}@127.0.0.1:{fa.port}/role_t").close()
        remove_server(engine, "fr2")  # fr1 reads through it still
        assert roles() == [role]
        remove_server(engine, "fr1")
        assert roles() == []
        add_server(engine, "fr1", url)
        with psycopg.connect(url, autocommit=True) as remote:
            remote.execute("CREATE TABLE termx_shards.class_999999 (a int)")  # a shard of another coordinator
            remove_server(engine, "fr1")
            assert roles() == [role]
            remote.execute("DROP TABLE termx_shards.class_999999")
        add_server(engine, "fr1", url)
        with psycopg.connect(fa.url(), autocommit=True) as admin:  # an administrator takes the role over
            admin.execute(f"COMMENT ON ROLE {role} IS 'ours now'")
        remove_server(engine, "fr1")
        assert roles() == [role]
    finally:
        for name in ("fr1", "fr2"):
            if name in [r["name"] for r in list_servers(engine)]:
                remove_server(engine, name)
        with psycopg.connect(fa.url(), autocommit=True) as admin:
            admin.execute('DROP DATABASE "role_t" WITH (FORCE)')
            admin.execute(f"DROP ROLE IF EXISTS {role}")


def _corpus_on_both(engine: Engine, name: str) -> None:
    """Corpus `name`: shards 0 and 1 on fa, shard 2 on fb."""
    docs = [Document(f"d{n}", t) for n, t in enumerate(["Hi_Ho_Hi_Ho", "Hi_Ho Hi", "Ho there"])]
    save_shards(engine, name, [docs[:2], docs[2:]], Unit.byte, KMAX, runner=IN_PROCESS, server="fa")
    save_shards(engine, name, [[Document("d3", "Ho Ho, off we go")]], Unit.byte, KMAX, runner=IN_PROCESS,
                append=True, server="fb")


def test_a_storage_server_stopped_mid_copy(engine: Engine, database_url: str, storage: list[TestServer],
                                           tmp_path: Path) -> None:
    """`termx index --append --server fb` while fb is stopped (-m immediate) in the middle of the class rows' COPY
    there: one line naming fb, the corpus and the shard being built, exit 1, no password; the corpus, its shards and
    both servers' tables are as they were (fb's staged table and the coordinator's leftovers are dropped by the next
    writer once fb is back) and its look-ups answer as before."""
    fa, fb = storage
    name = f"stop-{uuid.uuid4().hex[:8]}"
    _corpus_on_both(engine, name)
    before = (_state(engine, name), _remote_tables(fa), _remote_tables(fb))
    query = "SELECT * FROM termx.stats(:c, CAST(:p AS text[]))"
    answers = _rows(engine, query, c=name, p=["Ho", "Hi_", "o"])
    (tmp_path / "more.txt").write_text("Ho Ho Hi, there we go " * 50)
    mark = tmp_path / "mark"
    env = {**os.environ, "TERMX_DATABASE_URL": database_url, "TERMX_FAULT": "sleep:copy_classes:4",
           "TERMX_FAULT_MARK": str(mark)}
    build = subprocess.Popen([sys.executable, "-m", "termx", "index", str(tmp_path / "more.txt"), "--corpus", name,
                              "--append", "--server", "fb", "-q"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(1200):  # the worker has sent the COPY's first rows to fb and sleeps (up to 120 s to get there)
            if mark.exists() or build.poll() is not None:
                break
            time.sleep(0.1)
        assert mark.read_text() == "copy_classes\n"
        fb.stop()
        _, err = build.communicate(timeout=300)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
        if not fb.running():
            fb.start()
    assert build.returncode == 1, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"Error: storage server 'fb' is unreachable (corpus '{name}', shard 3): "), err
    assert "Traceback" not in err and fb.password not in err and fa.password not in err
    assert _state(engine, name)[:2] == before[0][:2]  # the corpus and its shards; the staged tables wait for fb
    assert _remote_tables(fb) != before[2]  # what was staged on fb while it was down
    with pytest.raises(CorpusNotFound):  # a writer: its garbage collection reaches fb again
        drop_corpus(engine, f"absent-{uuid.uuid4().hex[:6]}")
    assert (_state(engine, name), _remote_tables(fa), _remote_tables(fb)) == before
    assert _rows(engine, query, c=name, p=["Ho", "Hi_", "o"]) == answers
    drop_corpus(engine, name)


def test_a_storage_server_gone_mid_statement_is_named(engine: Engine, storage: list[TestServer]) -> None:
    """fb stopped while a transaction of the coordinator holds its postgres_fdw connection: the next statement reading
    fb's partition fails on the broken connection (postgres_fdw's error names no server: its context is the remote
    command); naming_unreachable probes the corpus's servers and names fb and the corpus's shard there; the CLI's
    line for the raw error says a storage server went away, not that the coordinator's connection was lost."""
    from termx.errors import database_error_line
    from termx.storage.foreign import naming_unreachable

    fa, fb = storage
    name = f"mid-{uuid.uuid4().hex[:8]}"
    _corpus_on_both(engine, name)
    query = sa.text("SELECT freq FROM termx.stats(:c, 'Ho')")
    with engine.connect() as conn:
        conn.begin()
        freq = conn.execute(query, {"c": name}).scalar_one()  # fa's and fb's connections are open
        fb.stop()
        try:
            with pytest.raises(sa.exc.OperationalError) as lost:
                conn.execute(query, {"c": name})
            conn.rollback()
            with pytest.raises(ServerUnreachable) as named, naming_unreachable(engine, name):
                raise lost.value
        finally:
            fb.start()
    assert named.value.what == f"storage server 'fb' is unreachable (corpus '{name}', shard 2)", named.value
    assert fb.password not in str(named.value) and len(str(named.value).splitlines()) == 1
    line = database_error_line(lost.value)
    assert line is not None and line.startswith("a storage server went away in the middle of the statement: "), line
    assert len(line.splitlines()) == 1 and fb.password not in line
    with engine.connect() as conn:
        assert conn.execute(query, {"c": name}).scalar_one() == freq  # answers again
    drop_corpus(engine, name)
    serve_app = pytest.importorskip("termx.serve.app")  # HTTP: 503, as for a server that cannot be reached
    assert serve_app._database_status(lost.value) == (503, "a storage server went away in the middle of the statement:"
                                                      f" {line.split(': ', 1)[1].split(' (')[0]}")


def test_dask_builds_write_each_shard_to_its_server(engine: Engine, storage: list[TestServer], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`--dask` with `--server`: the tasks of a Dask LocalCluster carry the storage server's conninfo and nothing of
    the coordinator's (no URL, database name, port or password in the pickled task), store each shard's class rows
    on the storage server (a build on fb, an append on fa) and return its arrays, which the coordinator stores with
    the documents and attaches the partitions; every stored class row, array, document and `termx.stats` equals the
    same shards built locally. A failure of the coordinator's write of a returned shard, and a storage server
    stopped in the middle of a task's COPY (the one ServerUnreachable line, raised on the worker, passed through
    Dask), leave the corpus as it was."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("dask.distributed")
    from termx.storage.executors import dask_runner

    fa, fb = storage
    docs = [Document(f"d{n}", t) for n, t in enumerate(["the cat sat", "a cat", "mat mat mat", "the end"] * 3)]
    groups, more = [docs[:5], docs[5:7], docs[7:9], docs[9:11]], [docs[11:]]
    local, remote = f"dl-{uuid.uuid4().hex[:8]}", f"dr-{uuid.uuid4().hex[:8]}"
    save_shards(engine, local, groups, Unit.word, KMAX, runner=IN_PROCESS)
    save_shards(engine, local, more, Unit.word, KMAX, runner=IN_PROCESS, append=True)
    sent: list[ShardTask] = []
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster:
        dask_tasks = dask_runner(cluster.scheduler_address)

        def on_dask(tasks: list[ShardTask]) -> Iterator[ShardResult]:
            sent.extend(tasks)
            return dask_tasks(tasks)

        save_shards(engine, remote, groups, Unit.word, KMAX, runner=on_dask, server="fb")
        save_shards(engine, remote, more, Unit.word, KMAX, runner=on_dask, append=True, server="fa")
        coordinator = engine.url
        for task in sent:  # what travels to a worker names the storage server only
            pickled = pickle.dumps(task)
            assert task.url is None and task.class_url and f"port={fb.port if task.server == 'fb' else fa.port}" \
                in task.class_url
            assert str(coordinator.database).encode() not in pickled
            assert f"port={coordinator.port or 5432} ".encode() not in pickled
            assert coordinator.render_as_string(hide_password=True).encode() not in pickled
            assert coordinator.password is None or str(coordinator.password).encode() not in pickled
        assert [t.server for t in sent] == ["fb"] * 4 + ["fa"]
        rows = "SELECT s.shard_no, k.i, k.j, k.lbl, k.sil, k.freq, k.df, k.rep FROM termx.class k JOIN termx.shard s " \
               "ON s.id = k.shard_id JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = :n ORDER BY 1, 2, 3"
        assert _rows(engine, rows, n=remote) == _rows(engine, rows, n=local) != []
        stored = "SELECT s.shard_no, s.tokens, s.documents, s.first_doc, s.classes, a.name, a.chunk, a.dtype, " \
                 "a.length, md5(a.data) AS data FROM termx.index_array a JOIN termx.shard s ON s.id = a.shard_id " \
                 "JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = :n ORDER BY 1, 6, 7"
        assert _rows(engine, stored, n=remote) == _rows(engine, stored, n=local) != []
        documents = "SELECT d.doc_no, s.shard_no, d.name, d.title, d.start, d.length, d.text FROM termx.document d " \
                    "JOIN termx.shard s ON s.id = d.shard_id JOIN termx.corpus c ON c.id = d.corpus_id " \
                    "WHERE c.name = :n ORDER BY 1"
        assert _rows(engine, documents, n=remote) == _rows(engine, documents, n=local) != []
        kinds = "SELECT s.server, p.relkind FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id " \
                "JOIN pg_class p ON p.oid = ('termx.class_' || s.id)::regclass WHERE c.name = :n ORDER BY s.shard_no"
        assert _rows(engine, kinds, n=remote) == [{"server": "fb", "relkind": "f"}] * 4 + \
            [{"server": "fa", "relkind": "f"}]
        ids = _rows(engine, "SELECT 'class_' || s.id AS t FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id "
                            "WHERE c.name = :n ORDER BY s.shard_no", n=remote)
        assert {r["t"] for r in ids[:4]} <= set(_remote_tables(fb)) and ids[4]["t"] in _remote_tables(fa)
        query = "SELECT * FROM termx.stats(:c, CAST(:p AS text[]))"
        patterns = ["cat", "mat mat", "the", "dog"]
        assert _rows(engine, query, c=remote, p=patterns) == _rows(engine, query, c=local, p=patterns)

        before = (_state(engine, remote), _remote_tables(fa), _remote_tables(fb))
        monkeypatch.setenv("TERMX_FAULT", "fail:store_returned")  # the coordinator's write of a returned shard
        with pytest.raises(Exception, match="fault injected at store_returned"):
            save_shards(engine, remote, [[Document("e0", "the cat")], [Document("e1", "the mat")]], Unit.word, KMAX,
                        runner=on_dask, append=True, server="fa")
        monkeypatch.delenv("TERMX_FAULT")
        assert (_state(engine, remote), _remote_tables(fa), _remote_tables(fb)) == before
        assert _staged_rows(engine) == 0

        def stop_fb(point: str) -> None:  # the cluster's workers are threads of this process
            if point == "copy_classes" and fb.running():
                fb.stop()

        monkeypatch.setattr("termx.storage.corpora.fault_point", stop_fb)
        try:
            with pytest.raises(ServerUnreachable) as lost:
                save_shards(engine, remote, [[Document("e1", "the cat and the mat")]], Unit.word, KMAX,
                            runner=on_dask, append=True, server="fb")
        finally:
            if not fb.running():
                fb.start()
    assert lost.value.what == f"storage server 'fb' is unreachable (corpus '{remote}', shard 5)", lost.value
    assert len(str(lost.value).splitlines()) == 1 and fb.password not in str(lost.value)
    assert str(pickle.loads(pickle.dumps(lost.value))) == str(lost.value)  # as a worker process sends it
    with pytest.raises(CorpusNotFound):  # a writer's garbage collection, fb being back
        drop_corpus(engine, f"absent-{uuid.uuid4().hex[:6]}")
    assert (_state(engine, remote), _remote_tables(fa), _remote_tables(fb)) == before
    for name in (local, remote):
        drop_corpus(engine, name)


def test_termx_sql_reads_foreign_partitions_as_a_read_only_role(engine: Engine, db_env: str,
                                                                storage: list[TestServer], tmp_path: Path) -> None:
    """`termx sql` (termx_reader) reads a corpus with shards on fa and fb through termx_reader's own user mappings,
    which log in as each storage server's read-only role: the same rows as the owner's; pg_user_mappings shows
    termx_reader no option (no password, its own or the owner's); that role reads termx_shards' tables and may write
    nothing, read nothing else of termx's. With fb stopped, `termx sql` on the corpus names fb and its shard."""
    fa, fb = storage
    name = f"sql-{uuid.uuid4().hex[:8]}"
    _corpus_on_both(engine, name)
    (tmp_path / "stats.sql").write_text("SELECT * FROM termx.stats(:corpus, CAST(:patterns AS text[]))")
    (tmp_path / "who.sql").write_text("SELECT current_user AS who, (SELECT count(*) FROM pg_user_mappings "
                                      "WHERE umoptions IS NOT NULL) AS shown, (SELECT count(*) FROM "
                                      "pg_user_mappings WHERE srvname IN ('termx_fa', 'termx_fb') AND usename = "
                                      "current_user) AS mappings")

    def sql(*args: str) -> list[dict[str, object]]:
        result = runner.invoke(app, ["sql", *args, "--format", "json"])
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)  # type: ignore[no-any-return]

    patterns = "{Ho,Hi_,o,xyz}"
    owner = _rows(engine, "SELECT * FROM termx.stats(:c, CAST(:p AS text[]))", c=name, p=patterns)
    assert sql(str(tmp_path / "stats.sql"), "-p", f"corpus={name}", "-p", f"patterns={patterns}") == \
        json.loads(json.dumps(owner, default=str))
    assert sql(str(tmp_path / "who.sql")) == [{"who": "termx_reader", "shown": 0, "mappings": 2}]

    options = dict(o.split("=", 1) for o in _rows(
        engine, "SELECT umoptions FROM pg_user_mappings WHERE srvname = 'termx_fb' AND usename = 'termx_reader'"
    )[0]["umoptions"])
    assert options["user"].startswith("termx_reads_") and options["password"] not in (fa.password, fb.password)
    table = _rows(engine, "SELECT 'termx_shards.class_' || s.id AS t FROM termx.shard s JOIN termx.corpus c "
                          "ON c.id = s.corpus_id WHERE c.name = :n AND s.server = 'fb'", n=name)[0]["t"]
    reader = f"postgresql://{options['user']}:{options['password']}@127.0.0.1:{fb.port}/{DB}"
    with psycopg.connect(reader, autocommit=True) as remote:
        assert remote.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0  # type: ignore[index]
        for statement in (f"DELETE FROM {table}", "CREATE TABLE termx_shards.x (a int)",
                          "SELECT count(*) FROM termx.corpus"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                remote.execute(statement)

    fb.stop()
    try:
        result = runner.invoke(app, ["sql", str(tmp_path / "stats.sql"), "-p", f"corpus={name}", "-p",
                                     f"patterns={patterns}"])
    finally:
        fb.start()
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"Error: storage server 'fb' is unreachable (corpus '{name}', shard 2): "), \
        result.stderr
    assert fb.password not in result.stderr and options["password"] not in result.stderr
    drop_corpus(engine, name)


def test_termx_sql_says_so_where_the_storage_user_may_not_create_roles(engine: Engine, db_env: str,
                                                                        storage: list[TestServer], tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    """A storage server added with a user without CREATEROLE: `add` registers it with a notice that termx sql cannot
    read its shards, the owner's look-ups work, and a `termx sql` query reading them fails in one line saying so."""
    fa = storage[0]
    password = uuid.uuid4().hex
    with psycopg.connect(fa.url(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE plain LOGIN PASSWORD '{password}'")
        admin.execute("CREATE DATABASE plain_t OWNER plain")
    name = f"plain-{uuid.uuid4().hex[:8]}"
    try:
        with caplog.at_level("WARNING", logger="termx"):
            add_server(engine, "fp", f"postgresql://plain:{password}@127.0.0.1:{fa.port}/plain_t")
        assert "server fp: its user may not create roles, so `termx sql` (termx_reader) cannot read" in caplog.text
        save_shards(engine, name, [[Document("d1", "Hi_Ho_Hi_Ho")]], Unit.byte, KMAX, runner=IN_PROCESS,
                    server="fp")
        assert _rows(engine, "SELECT freq FROM termx.stats(:c, 'Ho')", c=name) == [{"freq": 2}]
        (tmp_path / "stats.sql").write_text("SELECT freq FROM termx.stats(:corpus, 'Ho')")
        result = runner.invoke(app, ["sql", str(tmp_path / "stats.sql"), "-p", f"corpus={name}"])
        assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1, result.stderr
        assert "termx_reader has no read-only user mapping, so termx sql cannot read them" in result.stderr
        assert password not in result.stderr
    finally:
        with contextlib.suppress(CorpusNotFound):
            drop_corpus(engine, name)
        if "fp" in [r["name"] for r in list_servers(engine)]:
            remove_server(engine, "fp")
        with psycopg.connect(fa.url(), autocommit=True) as admin:
            admin.execute("DROP DATABASE plain_t WITH (FORCE)")
            admin.execute("DROP ROLE plain")


def test_termx_sql_names_a_storage_server_stopped_mid_scan(engine: Engine, db_env: str, storage: list[TestServer],
                                                           tmp_path: Path) -> None:
    """`termx sql` scanning a foreign partition of more class rows than postgres_fdw fetches at once (10,000), slowed
    by a local filter: fb stopped (-m immediate) while the statement runs, between two of its FETCHes, is named in
    one line with the corpus's shard there, exit 1, no password."""
    import random
    import threading

    fa, fb = storage
    name = f"scan-{uuid.uuid4().hex[:8]}"
    rng = random.Random(7)
    docs = [Document(f"d{n}", "".join(rng.choice("abcdefgh") for _ in range(5000))) for n in range(12)]
    save_shards(engine, name, [docs], Unit.byte, KMAX, runner=IN_PROCESS, server="fb")
    query = ("SELECT count(*) AS n FROM termx.class k WHERE k.shard_id = (SELECT s.id FROM termx.shard s JOIN "
             "termx.corpus c ON c.id = s.corpus_id WHERE c.name = :corpus) AND pg_sleep(0.0002) IS NOT NULL")
    rows = _rows(engine, query.replace(":corpus", ":c").replace(" AND pg_sleep(0.0002) IS NOT NULL", ""), c=name)
    assert rows[0]["n"] > 20_000  # at least three FETCHes
    (tmp_path / "scan.sql").write_text(query)
    stopped = threading.Event()

    def stop_when_scanning() -> None:
        with engine.connect() as conn:
            for _ in range(600):
                if conn.execute(sa.text("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND "
                                        "usename = 'termx_reader' AND query LIKE '%pg_sleep(0.0002)%'")).scalar():
                    conn.rollback()
                    time.sleep(0.3)  # inside the first batch of rows
                    fb.stop()
                    stopped.set()
                    return
                conn.rollback()  # a transaction sees one snapshot of pg_stat_activity
                time.sleep(0.05)

    watcher = threading.Thread(target=stop_when_scanning)
    watcher.start()
    try:
        result = runner.invoke(app, ["sql", str(tmp_path / "scan.sql"), "-p", f"corpus={name}"])
    finally:
        watcher.join()
        if not fb.running():
            fb.start()
    assert stopped.is_set(), (result.stdout, result.stderr)
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1, (result.stdout, result.stderr)
    assert result.stderr.startswith(f"Error: storage server 'fb' is unreachable (corpus '{name}', shard 0): "), \
        result.stderr
    assert fb.password not in result.stderr
    drop_corpus(engine, name)
