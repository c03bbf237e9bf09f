"""The explorer in a real browser: Playwright drives the distribution's Chromium (/usr/bin/chromium, never a
downloaded one) against one `termx serve` on 127.0.0.1; what the pages show equals the CLI's records."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app as cli
from termx.safe_text import escape_controls
from tests.test_explorer import CORPUS, HOSTILE, explored_corpus

CHROMIUM = "/usr/bin/chromium"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (apt-get install "
                                                                      "chromium)")]
playwright = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")
runner = CliRunner()


def _cli(*args: str) -> Any:
    result = runner.invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def server(engine: Engine, database_url: str) -> Iterator[str]:
    """One `termx serve` for the module, on a free port of 127.0.0.1."""
    from termx.serve import create_app

    explored_corpus(database_url)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(database_url, port=port), host="127.0.0.1", port=port,
                                       log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[Any]:
    """One Chromium for the module; a dialog (an alert a hostile document could open) fails the test."""
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        tab = browser.new_page(viewport={"width": 1280, "height": 800}, base_url=server)
        dialogs: list[str] = []
        tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        yield tab
        browser.close()
        assert not dialogs, f"a page opened a dialog: {dialogs}"


def _cells(page: Any, selector: str) -> list[str]:
    return [c.strip() for c in page.locator(selector).all_inner_texts()]


def test_search_box_shows_the_cli_statistics(page: Any, db_env: str) -> None:
    page.goto("/")
    page.select_option("select[name=corpus]", CORPUS)
    page.fill("#q", "oil pri")
    page.click("button[type=submit]")
    page.wait_for_url(f"**/c/{CORPUS}/stats?*")
    record = _cli("stats", CORPUS, "oil pri", "--format", "json")[0]
    assert _cells(page, "td.freq") == [str(record["freq"])]
    assert _cells(page, "td.df") == [str(d) for d in record["df"]]
    img = page.locator("img.dfplot")
    img.wait_for()
    assert page.evaluate("i => i.complete && i.naturalWidth > 0", img.element_handle())


def test_concordance_pages_and_opens_the_document(page: Any, db_env: str) -> None:
    page.goto(f"/c/{CORPUS}/concordance?q=price&per=3&width=6")
    lines = _cli("concordance", CORPUS, "price", "-l", "6", "-r", "6", "-n", "6", "--format", "json")
    shown = [escape_controls(r["left"]).strip() for r in lines]  # terminal controls are shown as \x.. text
    assert _cells(page, "td.left") == shown[:3]
    page.click("#next")
    page.wait_for_url("**page=2*")
    assert _cells(page, "td.left") == shown[3:6]
    page.click("a.doclink >> nth=0")
    page.wait_for_url(f"**/c/{CORPUS}/doc?*")
    assert page.inner_text("#match") == "price"
    assert escape_controls(lines[3]["left"] + "price" + lines[3]["right"]) in page.inner_text("#doc")


def test_switching_the_ranking(page: Any, db_env: str) -> None:
    page.goto(f"/c/{CORPUS}/terms?top=5&min_df=2")
    page.select_option("#rank", "freq")
    page.click("#apply")
    page.wait_for_url("**rank=freq*")
    terms = _cli("terms", CORPUS, "--rank", "freq", "--top", "5", "--min-df", "2", "--format", "json")
    assert _cells(page, "a.term") == [t["term"].strip() for t in terms]
    page.click("#rows th >> text=freq")  # a sortable column: largest first, then (clicked again) smallest first
    page.wait_for_url("**sort=freq*")
    shown = [int(c) for c in _cells(page, "#rows tbody td:nth-child(4)")]
    assert shown == sorted(shown, reverse=True)
    page.click("#rows th >> text=freq")
    page.wait_for_url(lambda url: "sort=freq" in url and "desc" not in url)
    assert [int(c) for c in _cells(page, "#rows tbody td:nth-child(4)")] == sorted(shown)
    page.check("#nested")  # C-value's discount: the CLI's --nested list, kept when the page reloads
    page.click("#apply")
    page.wait_for_url("**nested=1*")
    nested = _cli("terms", CORPUS, "--rank", "freq", "--top", "5", "--min-df", "2", "--nested", "--format", "json")
    assert _cells(page, "a.term") == [t["term"].strip() for t in nested]
    assert page.is_checked("#nested")


def test_a_related_pair_shows_its_exact_table(page: Any, db_env: str) -> None:
    page.goto(f"/c/{CORPUS}/related?q=bank&min_df=2")
    first = page.locator("a.pair").first
    other = first.inner_text()
    first.click()
    page.wait_for_url(f"**/c/{CORPUS}/jdf?*")
    record = _cli("jdf", CORPUS, "bank", other, "--format", "json")[0]
    assert page.inner_text("#table tbody tr:first-child td:nth-child(2)") == str(record["table"]["x_and_y"])
    assert page.inner_text("#jdf") == str(record["jdf"])


def test_segment_a_sentence(page: Any, db_env: str) -> None:
    page.goto(f"/c/{CORPUS}/segment")
    page.fill("#text", "theoilpricerose")
    page.click("#segment")
    page.wait_for_url("**text=theoilpricerose*")
    record = runner.invoke(cli, ["segment", CORPUS, "-", "--format", "json"], input="theoilpricerose\n")
    assert _cells(page, "#line1 span") == json.loads(record.stdout)[0]["words"]
    title = page.get_attribute("#line1 span >> nth=0", "title") or ""
    assert title.startswith("model score ") and "freq" in title
    page.select_option("#scorer", "words")  # the words of the corpus's own spacing, as --scorer words gives them
    page.click("#segment")
    page.wait_for_url("**scorer=words*")
    record = runner.invoke(cli, ["segment", CORPUS, "-", "--scorer", "words", "--format", "json"],
                           input="theoilpricerose\n")
    assert _cells(page, "#line1 span") == json.loads(record.stdout)[0]["words"]


def test_run_a_canned_query(page: Any, db_env: str) -> None:
    page.goto("/sql")
    page.click("#queries a >> text=stats")
    page.fill("input[name=corpus]", CORPUS)
    page.fill("input[name=pattern]", "bank")
    page.click("#run")
    page.wait_for_selector("#rows")
    rows = _cli("sql", "stats", "-p", f"corpus={CORPUS}", "-p", "pattern=bank", "--format", "json")
    assert page.inner_text("#rows tbody td:nth-child(2)") == str(rows[0]["freq"])


def test_the_hostile_document_renders_as_text(page: Any) -> None:
    page.goto(f"/c/{CORPUS}/doc?doc_no=14")
    shown = page.inner_text("#doc")
    assert "<script>alert('x')</script>" in shown and "<b>bold</b>" in shown and "\\x1b]0;pwned\\x07" in shown
    assert page.locator("#doc script, #doc b").count() == 0
    page.goto(f"/c/{CORPUS}/concordance?q=script&width=30")
    assert page.locator("td.match").count() == 2 and page.locator("main script").count() == 0


def test_every_export_link_gives_csv_equal_to_json(page: Any) -> None:
    import csv
    import io

    for url in (f"/c/{CORPUS}/stats?q=bank&q=oil", f"/c/{CORPUS}/concordance?q=oil&per=4", f"/c/{CORPUS}/terms?top=4",
                f"/c/{CORPUS}/related?q=bank&min_df=2", f"/c/{CORPUS}/segment?text=bankshares", "/c",
                f"/c/{CORPUS}/doc?doc_no=14", "/sql?sql=SELECT+1.5+AS+x"):
        page.goto(url)
        as_json = page.request.get(page.get_attribute("a >> text=JSON", "href")).json()
        as_csv = list(csv.DictReader(io.StringIO(page.request.get(page.get_attribute("a >> text=CSV", "href")).text())))
        assert as_json and len(as_csv) == len(as_json), url
        for row, line in zip(as_json, as_csv, strict=True):
            assert {k: v if isinstance(v, str) else "" if v is None else json.dumps(v, ensure_ascii=False)
                    for k, v in row.items()} == line, url
    assert HOSTILE  # the hostile document is one of the rows above (doc 14)
