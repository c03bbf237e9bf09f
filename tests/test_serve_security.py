"""`termx serve` against hostile requests: every parameter checked in one place (termx.limits) before any work,
no model stored for one request's params, a bounded model cache, 503 / 400 in one line without a traceback, only
its own Host names, and one error shape; GET for the read endpoints."""

from __future__ import annotations

import json
import logging
import math
import threading

import numpy as np
import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import termx
from termx.api import MODELS_IN_MEMORY
from termx.cli import app as cli
from termx.errors import InputError
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.limits import BRANCHING, HttpLimits, check_scorer_params
from termx.storage.indexer import index_documents
from termx.wordbreak import Scorer, scorer_params

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from termx.serve import create_app  # noqa: E402

runner = CliRunner()
CORPUS = "guarded"
HOSTILE = [{"kappa": math.nan}, {"passes": 1e8}, {"smoothing": -5}, {"theta0": math.inf}, {"window": math.nan},
           {"window": 2.5}, {"theta": -math.inf}, {"pass_mix": 2}, {"suffix_stems": 0}]


@pytest.fixture(scope="module")
def corpus(engine: Engine) -> str:
    rng = np.random.default_rng(7)
    words = ["oil", "bank", "price", "rose", "the", "of"]
    index_documents(engine, CORPUS, [Document(f"d{k}", " ".join(rng.choice(words, 25))) for k in range(4)],
                    Unit.byte, 3, replace=True)
    return CORPUS


@pytest.fixture()
def client(corpus: str, database_url: str) -> TestClient:
    return TestClient(create_app(database_url, hosts=("127.0.0.1", "localhost", "::1", "served.example"),
                                 port=8765), base_url="http://127.0.0.1:8765", raise_server_exceptions=False)


def _models(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.text("SELECT count(*) FROM termx.segment_model m JOIN termx.corpus c"
                                        " ON c.id = m.corpus_id WHERE c.name = :n"), {"n": CORPUS}).scalar_one())


@pytest.mark.parametrize("params", HOSTILE, ids=lambda p: f"{next(iter(p))}={next(iter(p.values()))}")
def test_hostile_params_are_refused_everywhere(params: dict[str, float], client: TestClient, engine: Engine,
                                               db_env: str) -> None:
    """HTTP 400 in one line, CLI `Error:` exit 1, Python InputError, and nothing trained or stored (before the
    checks, NaN or infinity made training loop forever and 1e8 passes ran for ever as well)."""
    with pytest.raises(InputError, match=next(iter(params))):
        scorer_params(Scorer.branching, params)
    before = _models(engine)
    body = json.dumps({"corpus": CORPUS, "lines": ["oilprice"], "params": params})  # NaN/Infinity as JSON allows
    r = client.post("/segment", content=body, headers={"content-type": "application/json"})
    name = next(iter(params))
    assert r.status_code == 400 and r.json().keys() == {"error"}
    assert name in r.json()["error"] and "\n" not in r.json()["error"]
    result = runner.invoke(cli, ["segment", CORPUS, "-", "-p", f"{name}={params[name]}"], input="oilprice\n")
    assert result.exit_code == 1 and result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert result.stdout == ""
    with pytest.raises(InputError, match=name), termx.open(CORPUS) as c:
        list(c.segment(["oilprice"], params=params))
    assert _models(engine) == before


def test_every_parameter_has_a_finite_range() -> None:
    assert set(BRANCHING) == set(scorer_params(Scorer.branching, {}))
    for name, allowed in BRANCHING.items():
        assert math.isfinite(allowed.low) and math.isfinite(allowed.high), name
        assert allowed.check(name, allowed.low) == allowed.low
    assert check_scorer_params({"passes": 2.0, "theta": -3}) == {"passes": 2, "theta": -3.0}
    assert isinstance(check_scorer_params({"passes": 2.0})["passes"], int)
    with pytest.raises(InputError, match="beta"):
        scorer_params(Scorer.freq, {"beta": math.nan})


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/segment", {"lines": ["a"], "max_len": 0}, "max_len"),
    ("/segment", {"lines": ["a"] * 10_001}, "lines"),
    ("/stats", {"patterns": ["a"] * 1001}, "patterns"),
    ("/concordance", {"pattern": "a", "limit": 10**9}, "limit"),
    ("/terms", {"top": 10**9}, "top"),
    ("/terms", {"max_len": 10**9}, "max_len"),
])
def test_request_sizes_are_capped(client: TestClient, path: str, body: dict[str, object], field: str) -> None:
    r = client.post(path, json={"corpus": CORPUS, **body})
    assert r.status_code == 400 and r.json().keys() == {"error"} and field in r.json()["error"]


def test_models_for_one_request_are_not_stored_and_memory_is_bounded(client: TestClient, engine: Engine,
                                                                   database_url: str) -> None:
    """N distinct params: no row added, at most MODELS_IN_MEMORY models kept; `store: true` stores one."""
    before = _models(engine)
    params = [{"theta": float(-k)} for k in range(MODELS_IN_MEMORY + 2)]
    for p in params:
        r = client.post("/segment", json={"corpus": CORPUS, "lines": ["oilpricerose"], "params": p})
        assert r.status_code == 200, r.text
    assert _models(engine) == before
    with termx.open(CORPUS, database_url) as c:
        for p in params:
            c.model(params=p, store=False)
        assert len(c._models) == MODELS_IN_MEMORY
        assert not c.has_model(params=params[0]) and c.has_model(params=params[-1])
    r = client.post("/segment", json={"corpus": CORPUS, "lines": ["oil"], "params": {"theta": 1.5}, "store": True})
    assert r.status_code == 200 and _models(engine) == before + 1


def test_health_answers_while_a_request_works(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request that takes long runs off the event loop: /health answers meanwhile (one loop for both)."""
    started, release = threading.Event(), threading.Event()

    def slow_stats(self: termx.Corpus, patterns: object) -> list[object]:
        started.set()
        release.wait(30)
        return []

    monkeypatch.setattr(termx.Corpus, "stats", slow_stats)
    with client:  # one event loop for every request
        worker = threading.Thread(target=client.post, args=("/stats",),
                                  kwargs={"json": {"corpus": CORPUS, "patterns": ["oil"]}})
        worker.start()
        assert started.wait(30)
        try:
            assert client.get("/health").json()["status"] == "ok"
            assert not release.is_set()
        finally:
            release.set()
            worker.join(30)


def test_database_down_is_503_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """A server that refuses connections (a closed port): 503, one line, one log line, no traceback."""
    down = TestClient(create_app("postgresql://termx@127.0.0.1:1/nowhere"), base_url="http://localhost",
                      raise_server_exceptions=False)
    with caplog.at_level(logging.INFO):
        for r in (down.post("/stats", json={"corpus": "x", "patterns": ["a"]}), down.get("/corpora"),
                  down.get("/terms?corpus=x")):
            assert r.status_code == 503 and r.json() == {"error": "database unavailable (the server's log says why)"}
    served = [rec.getMessage() for rec in caplog.records if rec.name == "termx.serve"]
    assert len(served) == 3 and all("cannot connect to" in m and "\n" not in m for m in served)
    assert not any(rec.exc_info for rec in caplog.records)


def test_lost_database_and_unexpected_errors_are_one_line(client: TestClient, monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    """The connection lost mid-request: 503; a bug: 500 `{"error"}`; each one log line, no traceback."""
    lost = sa.exc.OperationalError("SELECT 1", {}, psycopg.OperationalError("server closed the connection"))

    def fail(*args: object, **kwargs: object) -> None:
        raise lost

    monkeypatch.setattr(termx.Corpus, "terms", fail)
    with caplog.at_level(logging.INFO):
        r = client.post("/terms", json={"corpus": CORPUS})
        assert r.status_code == 503 and "database unavailable" in r.json()["error"]
        monkeypatch.setattr(termx.Corpus, "terms", lambda *a, **k: 1 / 0)
        r = client.post("/terms", json={"corpus": CORPUS})
        assert r.status_code == 500 and r.json() == {"error": "internal error (ZeroDivisionError)"}
    served = [rec for rec in caplog.records if rec.name == "termx.serve"]
    assert len(served) == 2 and "server closed the connection" in served[0].getMessage()
    assert not any(rec.exc_info for rec in caplog.records)


@pytest.mark.parametrize(("host", "status"), [
    ("127.0.0.1:8765", 200), ("localhost:8765", 200), ("[::1]:8765", 200), ("localhost", 200),
    ("served.example:8765", 200), ("LOCALHOST:8765", 200),
    ("evil.example", 421), ("evil.example:8765", 421), ("localhost:9999", 421), ("127.0.0.1.evil.example", 421),
])
def test_only_its_own_host_names_are_answered(client: TestClient, host: str, status: int) -> None:
    r = client.get("/health", headers={"host": host})
    assert r.status_code == status
    if status != 200:
        assert r.json().keys() == {"error"} and "--allow-host" in r.json()["error"]


def test_serve_command_passes_allow_host(monkeypatch: pytest.MonkeyPatch, database_url: str) -> None:
    import uvicorn

    seen: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    result = runner.invoke(cli, ["serve", "--db", database_url, "--port", "9000", "--allow-host", "box.lan"])
    assert result.exit_code == 0, result.output
    app = TestClient(seen["app"], raise_server_exceptions=False)  # type: ignore[arg-type]
    assert app.get("/health", headers={"host": "box.lan:9000"}).status_code == 200
    assert app.get("/health", headers={"host": "127.0.0.1:9000"}).status_code == 200
    assert app.get("/health", headers={"host": "rebound.example:9000"}).status_code == 421


def test_get_answers_as_post(client: TestClient) -> None:
    pairs = [
        ("/stats?corpus=guarded&pattern=oil&pattern=oil%20price", {"corpus": CORPUS, "patterns": ["oil", "oil price"]}),
        ("/concordance?corpus=guarded&pattern=price&left=3&limit=2",
         {"corpus": CORPUS, "pattern": "price", "left": 3, "limit": 2}),
        ("/terms?corpus=guarded&top=5&min_df=2&rank=freq", {"corpus": CORPUS, "top": 5, "min_df": 2, "rank": "freq"}),
    ]
    for url, body in pairs:
        got, posted = client.get(url), client.post(url.split("?")[0], json=body)
        assert got.status_code == posted.status_code == 200
        assert got.json() == posted.json() and got.json()


@pytest.mark.parametrize(("method", "url", "status", "reason"), [
    ("GET", "/nowhere", 404, "not found"),
    ("DELETE", "/stats", 405, "method not allowed"),
    ("PUT", "/health", 405, "method not allowed"),
    ("GET", "/stats?corpus=guarded", 400, "pattern"),
    ("GET", "/concordance?corpus=guarded&pattern=a&limit=x", 400, "limit"),
    ("GET", "/concordance?corpus=guarded&pattern=a&limit=0", 400, "limit"),
    ("GET", "/stats?corpus=nope&pattern=a", 404, "no corpus named"),
    ("POST", "/stats", 400, "corpus"),
])
def test_every_error_has_one_shape(client: TestClient, method: str, url: str, status: int, reason: str) -> None:
    r = client.request(method, url, json={} if method == "POST" else None)
    assert r.status_code == status
    assert r.json().keys() == {"error"} and reason in r.json()["error"].lower()
    assert "\n" not in r.json()["error"]
    if status == 405:
        assert r.headers["allow"]


def test_training_for_a_request_is_capped_by_corpus_size(corpus: str, database_url: str, engine: Engine) -> None:
    """Over --max-train-tokens a request's own params are refused (400) unless their model is stored."""
    small = TestClient(create_app(database_url, max_train_tokens=10), base_url="http://localhost")
    body = {"corpus": CORPUS, "lines": ["oilprice"], "params": {"theta": -9.0}}
    r = small.post("/segment", json=body)
    assert r.status_code == 400 and "--max-train-tokens" in r.json()["error"]
    assert small.post("/segment", json={"corpus": CORPUS, "lines": ["oilprice"]}).status_code == 200
    before = _models(engine)
    with termx.open(CORPUS, database_url) as c:
        c.model(params={"theta": -9.0})  # stored, as `termx segment guarded --param theta=-9` would
    assert _models(engine) == before + 1
    r = small.post("/segment", json=body)
    assert r.status_code == 200 and r.json()[0]["text"] == "oilprice"


def test_stored_models_per_corpus_are_capped(client: TestClient, engine: Engine,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`"store": true` adds no model beyond HTTP.stored_models of a corpus (here: as many as it has now)."""
    import termx.serve.app as served

    count = _models(engine)
    monkeypatch.setattr(served, "HTTP", HttpLimits(stored_models=count))
    body = {"corpus": CORPUS, "lines": ["oil"], "params": {"theta": 2.5}, "store": True}
    r = client.post("/segment", json=body)
    assert r.status_code == 400 and "segmentation models stored" in r.json()["error"]
    assert client.post("/segment", json={**body, "store": False}).status_code == 200
    assert _models(engine) == count
