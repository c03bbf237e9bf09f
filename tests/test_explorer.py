"""The explorer of `termx serve` (FastAPI TestClient): each view's .json holds the CLI's records, its .csv the same
values, errors are one line in the view's format, corpus text is escaped, and the SQL box stays read-only."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import numpy as np
import pytest
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import termx
from termx.cli import app as cli

pytest.importorskip("fastapi")
pytest.importorskip("jinja2")
from fastapi.testclient import TestClient  # noqa: E402

from termx.serve import create_app  # noqa: E402

runner = CliRunner()
WORDS = ["market", "bank", "oil", "price", "rose", "fell", "share", "the", "of", "dollar"]
HOSTILE = "oil <script>alert('x')</script> bank \x1b]0;pwned\x07 price &amp; <b>bold</b>"
CORPUS = "explored"


def explored_corpus(database_url: str) -> None:
    """A byte corpus of 14 random word documents and one hostile document, with sketches for related()."""
    rng = np.random.default_rng(7)
    docs = [(f"d{k}", " ".join(rng.choice(WORDS, 60))) for k in range(14)] + [("hostile", HOSTILE)]
    with termx.Database(database_url) as db:
        db.index(CORPUS, docs, unit="byte", max_k=3, replace=True)
        db.corpus(CORPUS).sketch(k=64, threshold=2)
    result = runner.invoke(cli, ["crossval", CORPUS, "--db", database_url, "--format", "json"])  # stores its bins
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def client(engine: Engine, database_url: str) -> TestClient:
    explored_corpus(database_url)
    return TestClient(create_app(database_url), base_url="http://127.0.0.1")


def _cli(*args: str, input: str | None = None) -> Any:
    result = runner.invoke(cli, list(args), input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _cell(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


VIEWS = [f"/c/{CORPUS}/stats?q=bank&q=oil%20price&q=zzz", f"/c/{CORPUS}/dist?q=bank", f"/c/{CORPUS}/class?q=ban",
         f"/c/{CORPUS}/concordance?q=price&per=3&page=2&width=5", f"/c/{CORPUS}/doc?doc_no=14&offset=4&q=%3Cscript",
         f"/c/{CORPUS}/terms?rank=freq&top=7&min_df=2", f"/c/{CORPUS}/terms?rank=ridf&top=5&sort=freq&desc=1",
         f"/c/{CORPUS}/related?q=bank&min_df=2&measure=pmi", f"/c/{CORPUS}/jdf?x=bank&y=oil",
         f"/c/{CORPUS}/segment?text=theoilpricerose", f"/c/{CORPUS}/studies?freq=2", "/c",
         f"/sql/stats?corpus={CORPUS}&pattern=bank", "/sql?sql=SELECT+1+AS+one,+2.5+AS+x"]


@pytest.mark.parametrize("url", VIEWS)
def test_every_view_answers_html_and_its_csv_equals_its_json(client: TestClient, url: str) -> None:
    path, _, query = url.partition("?")
    html = client.get(url)
    assert html.status_code == 200, html.text
    assert html.headers["content-type"].startswith("text/html")
    assert f'{path}.json' in html.text  # the export links
    rows = client.get(f"{path}.json?{query}").json()
    assert isinstance(rows, list) and rows, url
    lines = list(csv.DictReader(io.StringIO(client.get(f"{path}.csv?{query}").text)))
    assert set(lines[0]) == {k for r in rows for k in r}
    assert lines == [{k: _cell(r.get(k)) for k in lines[0]} for r in rows]


def test_exports_are_the_cli_records(client: TestClient, db_env: str) -> None:
    get = client.get
    assert get(f"/c/{CORPUS}/stats.json?q=bank&q=oil price&q=zzz").json() == \
        _cli("stats", CORPUS, "bank", "oil price", "zzz", "--format", "json")
    assert get(f"/c/{CORPUS}/concordance.json?q=price&width=5&per=4&page=1").json() == \
        _cli("concordance", CORPUS, "price", "-l", "5", "-r", "5", "-n", "4", "--format", "json")
    page2 = get(f"/c/{CORPUS}/concordance.json?q=price&width=5&per=4&page=2").json()
    assert page2 == _cli("concordance", CORPUS, "price", "-l", "5", "-r", "5", "-n", "8", "--format", "json")[4:]
    assert get(f"/c/{CORPUS}/terms.json?rank=ridf&top=5&min_df=2").json() == \
        _cli("terms", CORPUS, "--rank", "ridf", "--top", "5", "--min-df", "2", "--format", "json")
    nested = get(f"/c/{CORPUS}/terms.json?rank=freq&top=8&min_df=2&nested=1").json()
    assert nested == _cli("terms", CORPUS, "--rank", "freq", "--top", "8", "--min-df", "2", "--nested",
                          "--format", "json")
    assert nested != get(f"/c/{CORPUS}/terms.json?rank=freq&top=8&min_df=2").json()
    assert get(f"/c/{CORPUS}/related.json?q=bank&min_df=2").json() == \
        _cli("related", CORPUS, "bank", "--min-df", "2", "--format", "json")
    assert get(f"/c/{CORPUS}/jdf.json?x=bank&y=oil").json() == _cli("jdf", CORPUS, "bank", "oil", "--format", "json")
    dist = _cli("stats", CORPUS, "bank", "--dist", "--format", "json")
    fits = get(f"/c/{CORPUS}/dist.json?q=bank").json()
    assert [{k: v for k, v in r.items() if k not in ("df", "expected")} for r in fits] == dist
    assert get(f"/sql/stats.json?corpus={CORPUS}&pattern=bank").json() == \
        _cli("sql", "stats", "-p", f"corpus={CORPUS}", "-p", "pattern=bank", "--format", "json")
    assert [c["name"] for c in get("/c.json").json()] == [c["name"] for c in _cli("corpora", "--format", "json")]


def test_sorting_the_terms_orders_every_format(client: TestClient) -> None:
    rows = client.get(f"/c/{CORPUS}/terms.json?rank=ridf&top=8&min_df=2&sort=freq&desc=1").json()
    assert [r["freq"] for r in rows] == sorted((r["freq"] for r in rows), reverse=True)
    ranked = client.get(f"/c/{CORPUS}/terms.json?rank=ridf&top=8&min_df=2").json()
    assert sorted(map(json.dumps, rows)) == sorted(map(json.dumps, ranked))


def test_the_fitted_expectations_match_the_fits(client: TestClient) -> None:
    fit = client.get(f"/c/{CORPUS}/dist.json?q=bank").json()[0]
    documents, lam = fit["documents"], fit["poisson_lambda"]
    assert fit["expected"]["poisson"][0] == pytest.approx(documents * (1 - np.exp(-lam)), rel=1e-12)
    assert fit["expected"]["katz"][0] == pytest.approx(fit["df"][0], rel=1e-9)  # K-mixture fits df_1 exactly
    svg = client.get(f"/c/{CORPUS}/plot.svg?q=bank")
    assert svg.headers["content-type"].startswith("image/svg+xml") and "negative binomial" in svg.text


def test_the_document_view_highlights_the_occurrence(client: TestClient) -> None:
    line = client.get(f"/c/{CORPUS}/concordance.json?q=rose&per=1").json()[0]
    doc = client.get(f"/c/{CORPUS}/doc.json?doc_no={line['doc_no']}&offset={line['offset']}&q=rose").json()[0]
    assert doc["match"] == "rose" and doc["before"].endswith(line["left"]) and doc["after"].startswith(line["right"])
    assert len((doc["before"] + doc["match"] + doc["after"]).encode()) == doc["tokens"]


def test_segment_words_carry_the_models_scores(client: TestClient, database_url: str) -> None:
    """The .json's scores are Corpus.segment_scores' (the search's own, tests/test_segment_scores.py), the words
    segment_records', and each word's hover title shows its score and the other words starting there."""
    text = "theoilpricerose\nbank shares fell"
    rows = client.get(f"/c/{CORPUS}/segment.json", params={"text": text}).json()
    with termx.Database(database_url) as db:
        corpus = db.corpus(CORPUS)
        assert rows == list(corpus.segment_scores(text.split("\n")))
        assert [r["words"] for r in rows] == [r["words"] for r in corpus.segment_records(text.split("\n"))]
    for r in rows:
        assert sum(s["score"] for s in r["scores"]) == pytest.approx(r["total"], rel=1e-12)
    html = client.get(f"/c/{CORPUS}/segment", params={"text": text}).text
    for s in rows[0]["scores"]:
        title = f'model score {s["score"]:.4g} (boundary {s["boundary"]:.4g})'
        if s["others"]:
            title += "; others here: " + ", ".join(f'{o["word"]} {o["score"]:.4g}' for o in s["others"])
        assert f'<span title="{title}; freq ' in html, title


def test_segment_with_the_words_model(client: TestClient, db_env: str) -> None:
    """scorer=words: the records and words of `termx segment --scorer words` (the corpus's own spacing), each word
    hovering with its statistics only."""
    text = "theoilpricerose\nbankshares fell"
    rows = client.get(f"/c/{CORPUS}/segment.json", params={"text": text, "scorer": "words"}).json()
    assert rows == _cli("segment", CORPUS, "-", "--scorer", "words", "--format", "json", input=text + "\n")
    assert rows != client.get(f"/c/{CORPUS}/segment.json", params={"text": text}).json()
    html = client.get(f"/c/{CORPUS}/segment", params={"text": text, "scorer": "words"}).text
    assert "model score" not in html and "<option selected>words</option>" in html
    for word in rows[0]["words"]:
        assert f">{word}</span>" in html


def test_hostile_text_is_escaped(client: TestClient) -> None:
    for url in (f"/c/{CORPUS}/concordance?q=script&width=40", f"/c/{CORPUS}/doc?doc_no=14&offset=4&q=%3Cscript",
                f"/c/{CORPUS}/stats?q=%3Cscript%3Ealert"):
        html = client.get(url).text
        assert "<script>" not in html and "<b>bold</b>" not in html and "\x1b" not in html, url
        assert "&lt;script" in html and "&lt;/script&gt;" in html
    page = client.get(f"/c/{CORPUS}/doc?doc_no=14")
    assert "\\x1b]0;pwned\\x07" in page.text
    assert "script-src 'none'" in page.headers["content-security-policy"]  # and no script would run anyway
    assert client.get(f"/c/{CORPUS}/doc.json?doc_no=14").headers["x-content-type-options"] == "nosniff"
    doc = client.get(f"/c/{CORPUS}/doc.json?doc_no=14").json()[0]
    assert doc["before"] + doc["match"] + doc["after"] == HOSTILE  # the exports stay exact


@pytest.mark.parametrize(("url", "status", "reason"), [
    ("/c/nope/stats", 404, "no corpus named 'nope'"),
    (f"/c/{CORPUS}/concordance?q=a&page=abc", 400, "`page` must be a whole number"),
    (f"/c/{CORPUS}/terms?rank=best", 400, "`rank` must be one of"),
    (f"/c/{CORPUS}/terms?rank=ridf&nested=1", 400, "`nested` discounts freq"),
    (f"/c/{CORPUS}/segment?text=abc&scorer=freq", 400, "`scorer` must be one of branching, words"),
    (f"/c/{CORPUS}/concordance?q=a&page=9999&per=100", 400, "beyond the first"),
    (f"/c/{CORPUS}/doc?doc_no=99", 400, "no document number 99"),
    (f"/c/{CORPUS}/jdf?x=bank", 400, "give both strings"),
    ("/sql/nope", 400, "no query named 'nope'"),
    ("/sql?sql=DELETE+FROM+termx.corpus", 400, "DELETE statement"),
    ("/sql?sql=SELECT+1;+DELETE+FROM+termx.corpus", 400, "more than one statement"),
    ("/sql?sql=SELECT+pg_sleep(10)", 400, "statement timeout"),
    ("/sql?sql=SELECT+generate_series(1,20000)", 400, "more than 10000 rows"),
])
def test_errors_are_one_line_in_the_views_format(client: TestClient, url: str, status: int, reason: str) -> None:
    path, _, query = url.partition("?")
    r = client.get(f"{path}.json?{query}")
    assert r.status_code == status and reason in r.json()["error"], r.text
    page = client.get(url)
    assert page.status_code == status and page.headers["content-type"].startswith("text/html")
    assert reason.replace("'", "&#39;") in page.text and page.text.count('class="error"') == 1
    assert len(client.get(f"/c/{CORPUS}/stats.json").json()) == 0  # the corpus is still there, untouched


def test_studies_show_the_command_where_nothing_is_stored(client: TestClient, db_env: str) -> None:
    assert "termx crossval explored" in client.get(f"/c/{CORPUS}/studies?freq=999999").text
    assert client.get(f"/c/{CORPUS}/studies.json?freq=2").json() == \
        _cli("sql", "crossval_bins", "-p", f"corpus={CORPUS}", "-p", "freq=2", "--format", "json")


def test_go_leads_a_form_to_its_view(client: TestClient) -> None:
    r = client.get(f"/go?corpus={CORPUS}&view=stats&q=bank", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/c/{CORPUS}/stats?q=bank"
    assert client.get("/go?corpus=x&view=../../etc").status_code == 400


@pytest.mark.parametrize("unit", ["byte", "char", "word"])
def test_document_of_each_concordance_line_holds_it(database_url: str, unit: str) -> None:
    """Over several shards and every unit: a line's document, split at its offset, has the line's match there and
    its contexts on either side; before + match + after is the whole document."""
    rng = np.random.default_rng(11)
    texts = {f"s{k}": " ".join(rng.choice(WORDS + ["é€"], 25)) for k in range(9)}
    with termx.Database(database_url) as db:
        db.index(f"explored-{unit}", list(texts.items()), unit=unit, max_k=3, replace=True, shard_size=300)
        c = db.corpus(f"explored-{unit}")
        assert len(c.shards) > 1
        lines = c.concordance("oil", 4, 4, None)
        assert lines
        for line in lines:
            doc = c.document(line["doc_no"], line["offset"], "oil")
            assert doc["doc"] == line["doc"] and doc["match"] == "oil"
            sep = " " if unit == "word" else ""  # a word corpus's text: its words joined by single spaces
            assert doc["before"].removesuffix(sep).endswith(line["left"])
            assert doc["after"].removeprefix(sep).startswith(line["right"])
            whole = c.document(line["doc_no"])
            assert whole["before"] == whole["match"] == "" and whole["after"] == doc["before"] + "oil" + doc["after"]
            if unit != "word":  # words are joined by single spaces, as in a concordance line
                assert whole["after"] == texts[line["doc"]]


def test_katz_expectation_is_the_tail_of_its_pmf() -> None:
    """expected_df's closed form D·α·r^k for the K-mixture equals D·Σ_{j>=k} Pr(j) summed term by term."""
    from termx.studies.distribution import dist_row, expected_df

    row = dist_row("x", 460, [144, 89, 58, 50], 19043)
    alpha, beta, documents = row["katz_alpha"], row["katz_beta"], row["documents"]
    pmf = [alpha / (beta + 1) * (beta / (beta + 1)) ** j for j in range(20_000)]
    pmf[0] += 1 - alpha
    tails = [documents * sum(pmf[k:]) for k in range(1, 5)]
    assert expected_df(row, 4)["katz"] == pytest.approx(tails, rel=1e-9)
    from scipy import stats

    assert expected_df(row, 4)["negative_binomial"] == pytest.approx(
        [documents * (1 - stats.nbinom.cdf(k - 1, row["nb_r"], row["nb_p"])) for k in range(1, 5)], rel=1e-9)


def test_a_sharded_corpus_keeps_its_per_shard_fields(client: TestClient, database_url: str, db_env: str) -> None:
    """Several shards: the records carry "shards" (stats) and "shard_no" (concordance lines), in both exports."""
    with termx.Database(database_url) as db:
        db.index("explored-shards", [(f"d{k}", "oil price rose bank fell " * 5) for k in range(9)], unit="byte",
                 max_k=3, replace=True, shard_size=300)
    for url, args in (("/c/explored-shards/stats.json?q=oil&q=zzz", ("stats", "explored-shards", "oil", "zzz")),
                      ("/c/explored-shards/concordance.json?q=bank&width=3&per=5",
                       ("concordance", "explored-shards", "bank", "-l", "3", "-r", "3", "-n", "5"))):
        rows = client.get(url).json()
        assert rows == _cli(*args, "--format", "json")
        lines = list(csv.DictReader(io.StringIO(client.get(url.replace(".json", ".csv")).text)))
        assert lines == [{k: _cell(r.get(k)) for k in lines[0]} for r in rows] and set(lines[0]) >= set(rows[0])
    page = client.get("/c/explored-shards/stats?q=oil").text
    assert "shard 4:" in page
