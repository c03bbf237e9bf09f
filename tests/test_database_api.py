"""termx.Database, the library face: index from (id, text) pairs or paths, list, append, drop, and a Corpus whose
stats, jdf and related return the records the CLI prints as JSON; errors are the typed ones the CLI maps; the
CLI's defaults for `termx index`, `termx related` and `termx sketch` are the library's."""

from __future__ import annotations

import dataclasses
import inspect
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import termx
from termx.api import Corpus
from termx.cli import app
from termx.errors import CorpusExists, CorpusNotFound, InputError, PatternError
from termx.jdf.sketches import DEFAULT_K, DEFAULT_THRESHOLD

runner = CliRunner()
TOPICS = [["oil", "crude", "barrel", "OPEC"], ["yen", "dollar", "Japan", "Tokyo"], ["wheat", "grain", "corn", "crop"]]
COMMON = ["the", "said", "market", "price", "year"]


def _pairs(n: int, seed: int = 3) -> list[tuple[str, str]]:
    """n (id, text) documents of one topic each: topic words among common words."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        topic = TOPICS[k % len(TOPICS)]
        words = [rng.choice(topic) if rng.random() < 0.4 else rng.choice(COMMON) for _ in range(rng.randint(5, 12))]
        out.append((f"n{k}", " ".join(words) + "."))
    return out


def _cli(*args: str) -> Any:
    """The JSON a CLI command prints (it must succeed)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def db(database_url: str) -> Iterator[termx.Database]:
    with termx.Database(database_url) as database:
        yield database


@pytest.fixture
def name(db: termx.Database) -> Iterator[str]:
    """A fresh corpus name; the corpus is dropped afterwards (other tests count what is stored)."""
    corpus = f"face_{uuid.uuid4().hex[:8]}"
    yield corpus
    if any(c["name"] == corpus for c in db.corpora()):
        db.drop(corpus)


def test_records_equal_the_cli_json(db: termx.Database, name: str, db_env: str) -> None:
    summary = db.index(name, [*_pairs(90), ("blank", "  \n")], sketches=True)
    assert (summary["corpus"], summary["documents"], summary["empty_documents_skipped"]) == (name, 90, 1)
    assert "sketch" in " ".join(summary["seconds"])  # the sketches were built with the corpus
    listed = {c["name"]: c for c in db.corpora()}
    assert listed[name] == {c["name"]: c for c in _cli("corpora", "--format", "json")}[name]
    assert db.corpora(name) == [listed[name]] and listed[name]["unit"] == "byte"
    corpus = db.corpus(name)
    assert isinstance(corpus, Corpus)
    assert corpus.stats(["oil", "yen"]) == _cli("stats", name, "oil", "yen", "--format", "json")
    pairs = corpus.jdf("oil", ["crude", "yen", "oil"])
    assert pairs == _cli("jdf", name, "oil", "crude", "yen", "oil", "--format", "json")
    assert [r["y"] for r in pairs] == ["crude", "yen", "oil"] and pairs[0]["jdf"] > 0 == pairs[1]["jdf"]
    sketched = corpus.jdf("the", "said", method="sketch")
    assert sketched == _cli("jdf", name, "the", "said", "--sketch", "--format", "json")
    assert sketched[0]["method"] == "sketch"
    companions = corpus.related("oil", top=5)
    assert companions == _cli("related", name, "oil", "--top", "5", "--format", "json")
    assert companions and {r["term"].strip(" .") for r in companions} & {"crude", "barrel", "OPEC"}


def test_append_and_drop(db: termx.Database, name: str) -> None:
    db.index(name, _pairs(6), unit="word")
    added = db.append(name, [termx.Document("late", "crude oil price"), ("later", "Tokyo yen")])
    assert (added["documents"], added["shards"]) == (8, 1)
    assert (db.corpora(name)[0]["documents"], db.corpora(name)[0]["shards"]) == (8, 2)
    assert db.corpus(name).stats("crude oil")[0]["freq"] >= 1
    with pytest.raises(InputError, match="already holds"):
        db.append(name, [("late", "again")])  # a given id is unique across the corpus
    assert db.drop(name) == {"term lists": 0, "white space runs": 0, "TBL models": 0}
    assert name not in [c["name"] for c in db.corpora()]


def test_index_paths_with_cli_options(db: termx.Database, name: str, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("oil price\n\ncrude oil\nyen\n", encoding="utf-8")
    summary = db.index(name, tmp_path, input="lines", unit="char", max_k=2)
    assert (summary["documents"], summary["unit"], summary["max_k"]) == (3, "char", 2)
    assert db.index(name, [str(tmp_path / "a.txt")], replace=True)["documents"] == 1  # input auto: one file
    assert db.corpus(name).stats("oil")[0]["freq"] == 2


def test_errors_are_typed(db: termx.Database, name: str, db_env: str) -> None:
    with pytest.raises(CorpusNotFound):
        db.corpus(name)
    with pytest.raises(CorpusNotFound):
        db.drop(name)
    result = runner.invoke(app, ["drop", name])
    assert result.exit_code == 1 and f"no corpus named {name!r}" in result.stderr
    for documents, options, message in [
        ([("a", "x"), "b.txt"], {}, "mix paths"),
        ([("a", "x"), ("a", "y")], {}, "duplicate document name"),
        ([("a", " ")], {}, "no text to index"),
        ([("a", "x\0y")], {}, "NUL"),
        ([("a", 5)], {}, "not a str"),
        ([3], {}, "document 1 is a int"),
        ([("a", "x")], {"unit": "chars"}, "`unit` 'chars' is not one of byte, char, word"),
        ([("a", "x")], {"shard_size": "lots"}, "is not a size"),
        ([("a", "x")], {"workers": 0}, "`workers` 0 is not between 1 and"),
        ([("a", "x")], {"workers": 10**6}, "`workers` 1000000 is not between 1 and"),
    ]:
        with pytest.raises(InputError, match=message):
            db.index(name, documents, **options)
    with pytest.raises(TypeError):
        db.index(name, [("a", "x")], units="char")
    db.index(name, [("a", "oil")])
    with pytest.raises(CorpusExists):
        db.index(name, [("a", "oil")])
    corpus = db.corpus(name)
    with pytest.raises(PatternError):
        corpus.jdf("", ["oil"])
    assert "error" in corpus.jdf("oil", [""])[0]
    with pytest.raises(InputError, match="no sketches"):
        corpus.related("oil")
    assert corpus.sketch(k=8, threshold=1)["k"] == 8
    assert corpus.related("oil") == [] and corpus.jdf("oil", "oil", method="sketch")[0]["jdf"] == 1
    with pytest.raises(InputError, match="`method`"):
        corpus.jdf("oil", "oil", method="approximate")


def _cli_defaults(command: str) -> dict[str, Any]:
    """The default of each option of a CLI command, by parameter name."""
    params = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
    return {p.name: p.default for p in params}


def test_cli_defaults_are_the_library_defaults() -> None:
    cli = _cli_defaults("index")
    library = {f.name: f.default for f in dataclasses.fields(termx.IndexOptions)}
    assert {field: cli["input_mode" if field == "input" else field] for field in library} == library
    for command, method, names in [("related", Corpus.related, ("top", "measure", "min_df")),
                                   ("sketch", Corpus.sketch, ("k", "threshold"))]:
        signature = inspect.signature(method).parameters
        assert {k: _cli_defaults(command)[k] for k in names} == {k: signature[k].default for k in names}
    assert inspect.signature(Corpus.sketch).parameters["k"].default == DEFAULT_K
    assert inspect.signature(Corpus.sketch).parameters["threshold"].default == DEFAULT_THRESHOLD
