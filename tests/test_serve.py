"""The HTTP API (FastAPI TestClient): every endpoint answers the CLI's JSON records; oversized bodies get 413,
malformed ones 400 with a one-line reason, unknown corpora 404."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app as cli
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from termx.serve import create_app  # noqa: E402

runner = CliRunner()
WORDS = ["market", "bank", "oil", "price", "rose", "fell", "share", "the", "of", "dollar"]


@pytest.fixture(scope="module")
def client(engine: Engine, database_url: str) -> TestClient:
    rng = np.random.default_rng(4)
    docs = [Document(f"d{k}", " ".join(rng.choice(WORDS, 60))) for k in range(12)]
    index_documents(engine, "served", docs, Unit.byte, 3, replace=True)
    return TestClient(create_app(database_url, max_body=4096), base_url="http://127.0.0.1")


def _cli(*args: str, stdin: str | None = None) -> object:
    result = runner.invoke(cli, list(args), input=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_endpoints_answer_the_cli_records(client: TestClient, db_env: str) -> None:
    r = client.post("/stats", json={"corpus": "served", "patterns": ["bank", "oil price", "zzz"]})
    assert r.status_code == 200
    assert r.json() == _cli("stats", "served", "bank", "oil price", "zzz", "--format", "json")
    r = client.post("/concordance", json={"corpus": "served", "pattern": "price", "left": 5, "right": 8,
                                          "limit": 4})
    assert r.status_code == 200
    assert r.json() == _cli("concordance", "served", "price", "-l", "5", "-r", "8", "-n", "4", "--format", "json")
    r = client.post("/terms", json={"corpus": "served", "top": 5, "min_df": 2})
    assert r.status_code == 200
    assert r.json() == _cli("terms", "served", "--top", "5", "--min-df", "2", "--format", "json")
    r = client.post("/terms", json={"corpus": "served", "top": 5, "min_df": 2, "rank": "freq", "nested": True})
    assert r.status_code == 200
    assert r.json() == _cli("terms", "served", "--top", "5", "--min-df", "2", "--rank", "freq", "--nested",
                            "--format", "json")
    assert r.json() != _cli("terms", "served", "--top", "5", "--min-df", "2", "--rank", "freq", "--format", "json")
    assert client.get("/terms?corpus=served&top=5&min_df=2&rank=freq&nested=true").json() == r.json()
    lines = ["theoilpricerose", "bank shares fell"]
    r = client.post("/segment", json={"corpus": "served", "lines": lines})
    assert r.status_code == 200
    assert r.json() == _cli("segment", "served", "-", "--format", "json", stdin="\n".join(lines) + "\n")
    r = client.post("/segment", json={"corpus": "served", "lines": lines, "scorer": "words"})
    assert r.status_code == 200
    words = _cli("segment", "served", "-", "--scorer", "words", "--format", "json", stdin="\n".join(lines) + "\n")
    assert r.json() == words and words[0]["words"] == ["the", "oil", "price", "rose"]
    assert client.get("/segment?corpus=served&line=theoilpricerose&line=bank%20shares%20fell&scorer=words"
                      ).json() == words
    assert client.get("/health").json()["loaded"] == ["served"]
    assert "served" in [c["name"] for c in client.get("/corpora").json()]
    assert client.get("/openapi.json").json()["paths"].keys() >= {"/stats", "/concordance", "/terms", "/segment"}


@pytest.mark.parametrize(("path", "body"), [
    ("/stats", {"corpus": "nope", "patterns": ["a"]}),
    ("/concordance", {"corpus": "nope", "pattern": "a"}),
    ("/terms", {"corpus": "nope"}),
    ("/segment", {"corpus": "nope", "lines": ["a"]}),
])
def test_unknown_corpus_is_404(client: TestClient, path: str, body: dict[str, object]) -> None:
    r = client.post(path, json=body)
    assert r.status_code == 404
    assert "no corpus named 'nope'" in r.json()["error"]


@pytest.mark.parametrize(("path", "content", "reason"), [
    ("/stats", b"{not json", "json"),
    ("/stats", b'{"corpus": "served"}', "patterns"),
    ("/stats", b'{"corpus": "served", "patterns": []}', "patterns"),
    ("/stats", b'{"corpus": "served", "patterns": ["a"], "extra": 1}', "extra"),
    ("/concordance", b'{"corpus": "served", "pattern": "a", "left": -1}', "left"),
    ("/terms", b'{"corpus": "served", "rank": "best"}', "rank"),
    ("/segment", b'{"corpus": "served", "lines": "not a list"}', "lines"),
    ("/segment", b'{"corpus": "served", "lines": ["a"], "params": {"nonsense": 1}}', "nonsense"),
])
def test_malformed_bodies_are_400_with_one_line(client: TestClient, path: str, content: bytes,
                                                reason: str) -> None:
    r = client.post(path, content=content, headers={"content-type": "application/json"})
    assert r.status_code == 400
    error = r.json()["error"]
    assert reason in error.lower() and "\n" not in error


def test_oversized_bodies_are_413(client: TestClient) -> None:
    big = json.dumps({"corpus": "served", "lines": ["x" * 100] * 100})
    r = client.post("/segment", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413

    def chunks():  # type: ignore[no-untyped-def]  # no Content-Length: counted as it arrives
        for k in range(0, len(big), 1000):
            yield big[k:k + 1000].encode()

    r = client.post("/segment", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.post("/stats", json={"corpus": "served", "patterns": ["bank"]}).status_code == 200
