"""termx segment warns once, before any model is trained, when the input is in another script than its corpus."""

from __future__ import annotations

import uuid
import warnings

import numpy as np
import pytest
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import termx
from termx.cli import app
from termx.errors import ForeignInput
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents

runner = CliRunner()
WORDS = ["market", "bank", "oil", "price", "rose", "fell", "share", "the", "of", "dollar"]
CHINESE = "中国经济今年继续保持稳定增长\n共同创造美好的新世纪\n"


@pytest.fixture(scope="module")
def english(engine: Engine) -> dict[Unit, str]:
    """The same unspaced English text as a byte corpus (no vocabulary: checked with termx.stats) and a char one."""
    rng = np.random.default_rng(3)
    docs = [Document(f"d{k}", "".join(rng.choice(WORDS, 30))) for k in range(8)]
    names = {}
    for unit in (Unit.byte, Unit.char):
        names[unit] = f"alphabet-{unit.value}-{uuid.uuid4().hex[:8]}"
        index_documents(engine, names[unit], docs, unit, 3)
    return names


@pytest.mark.parametrize("unit", [Unit.byte, Unit.char])
def test_cli_warns_once_on_another_script(db_env: str, english: dict[Unit, str], unit: Unit) -> None:
    r = runner.invoke(app, ["segment", english[unit], "-", "--scorer", "freq"], input=CHINESE * 3)
    assert r.exit_code == 0, r.output
    assert len(r.stdout.splitlines()) == 6  # answered all the same
    [warning] = r.stderr.splitlines()
    assert warning.startswith("Warning: 100% of the input's characters never occur in corpus")
    assert repr(english[unit]) in warning
    plain = runner.invoke(app, ["segment", english[unit], "-", "--scorer", "freq"],
                          input="theoilpricerose\nbank,fell\n")
    assert plain.exit_code == 0 and plain.stderr == ""


def test_python_segment_warns(db_env: str, english: dict[Unit, str]) -> None:
    with termx.open(english[Unit.byte]) as corpus:
        with pytest.warns(ForeignInput, match="never occur in corpus"):
            words = list(corpus.segment(CHINESE.splitlines()))
        assert len(words) == 2
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a warning would fail here
            assert list(corpus.segment(["theoilpricerose"])) == [["the", "oil", "price", "rose"]]
