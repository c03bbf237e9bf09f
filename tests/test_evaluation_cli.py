"""`termx compare`, `termx signtest-table` and `termx segscore` through Typer's CliRunner, plus the input
reader and the report they sit on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import EvaluationError, InputError
from termx.evaluation.inputs import pair_records, read_records
from termx.evaluation.report import TESTS, CompareOptions, compare, parse_tests, subset_table

runner = CliRunner()
A_ERRORS = [3, 5, 2, 6, 4, 7, 5, 6]
B_ERRORS = [1, 2, 2, 3, 1, 2, 4, 1]


def _write(path: Path, rows: list[dict] | str) -> Path:
    path.write_text(rows if isinstance(rows, str) else "".join(json.dumps(r) + "\n" for r in rows),
                    encoding="utf-8")
    return path


@pytest.fixture
def ab(tmp_path: Path) -> tuple[Path, Path]:
    """The contract example, with per-item outcomes (errors = number of wrong items)."""
    def rows(errs: list[int]) -> list[dict]:
        return [{"id": f"s{i}", "errors": e, "total": 10, "outcomes": [0] * e + [1] * (10 - e)}
                for i, e in enumerate(errs)]
    return _write(tmp_path / "a.jsonl", rows(A_ERRORS)), _write(tmp_path / "b.jsonl", rows(B_ERRORS))


def _ok(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def _error(args: list[str], code: int = 1) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.stderr


# --- compare ----------------------------------------------------------------------------------------------


def test_compare_sign_contract(tmp_path):
    a = _write(tmp_path / "a.jsonl", [{"id": f"s{i}", "errors": e} for i, e in enumerate(A_ERRORS)])
    b = _write(tmp_path / "b.jsonl", [{"id": f"s{i}", "errors": e} for i, e in enumerate(B_ERRORS)])
    [row] = json.loads(_ok(["compare", str(a), str(b), "--test", "sign", "--format", "json"]))
    assert row["p_value"] == 0.015625 and row["better"] == "B" and row["n"] == 7 and row["ties"] == 1
    assert row["decision"] == "reject H0" and row["statistic"] == 0


def test_compare_all_tests_json(ab):
    rows = json.loads(_ok(["compare", str(ab[0]), str(ab[1]), "--format", "json", "--resamples", "499"]))
    assert [r["test"] for r in rows] == list(TESTS)
    for r in rows:
        assert {"test", "statistic", "p_value", "n", "better", "decision", "difference", "note"} <= r.keys()
        assert r["p_value"] is not None and 0 < r["p_value"] <= 1 and r["better"] in ("B", None)
    by = {r["test"]: r for r in rows}
    assert by["ttest"]["p_value"] == pytest.approx(stats.ttest_rel(A_ERRORS, B_ERRORS).pvalue, abs=1e-9)
    assert by["mcnemar"]["details"]["b_only_right"] == sum(A_ERRORS) - sum(B_ERRORS)
    assert by["mcnemar"]["difference"] == pytest.approx((sum(A_ERRORS) - sum(B_ERRORS)) / 80)
    assert by["bootstrap"]["difference"] == pytest.approx((sum(A_ERRORS) - sum(B_ERRORS)) / 80)


def test_compare_table_report(ab):
    out = _ok(["compare", str(ab[0]), str(ab[1]), "--resamples", "99"])
    assert "error rate (lower is better)" in out and "Per-subset results" in out
    assert "sign: p = 0.01562 <= 0.05" in out and "B is better" in out
    assert out.count("\n s") >= 8  # one per-subset row each


def test_compare_one_tailed_takes_the_stated_direction(ab):
    """The direction is an argument stated before the data: the data's direction halves the two-sided p, the
    other direction keeps H0 (p near 1), and a one-tailed test without a direction is a usage error."""
    base = ["compare", *map(str, ab), "-t", "sign,wilcoxon", "-f", "json"]
    two = json.loads(_ok(base))
    b_better = json.loads(_ok([*base, "--tails", "1", "--alternative", "B-better"]))
    a_better = json.loads(_ok([*base, "--alternative", "A-better"]))
    assert [r["p_value"] for r in b_better] == pytest.approx([r["p_value"] / 2 for r in two])
    assert all(r["better"] == "B" and r["tails"] == 1 and r["alternative"] == "B-better" for r in b_better)
    assert all(r["p_value"] > 0.9 and r["better"] is None for r in a_better)
    assert a_better[0]["p_value"] == pytest.approx(stats.binomtest(0, 7, alternative="greater").pvalue)
    missing = runner.invoke(app, [*base, "--tails", "1"])
    assert missing.exit_code == 2 and "--alternative" in missing.output
    table = _ok(["compare", *map(str, ab), "-t", "sign", "--alternative", "A-better"])
    assert "hypothesis A better (stated beforehand)" in table and "1-tailed, hypothesis A better" in table


def test_compare_options_reach_the_tests(ab):
    [split] = json.loads(_ok(["compare", *map(str, ab), "-t", "sign", "--ties", "split", "-f", "json"]))
    assert split["n"] == 8 and split["p_value"] == pytest.approx(stats.binomtest(1, 8).pvalue)
    [normal] = json.loads(_ok(["compare", *map(str, ab), "-t", "mcnemar", "--normal", "-f", "json"]))
    assert normal["method"].startswith("chi-square")
    [pratt] = json.loads(_ok(["compare", *map(str, ab), "-t", "wilcoxon", "--zero-method", "pratt", "-f", "json"]))
    assert pratt["n"] == 8 and pratt["details"]["zero_method"] == "pratt"


def test_equal_error_differences_tie_exactly_as_rates(tmp_path):
    """3/12 - 2/12 != 1/12 in floating point; the Wilcoxon ranks must still see one tie group."""
    a = _write(tmp_path / "a.jsonl", [{"id": i, "errors": e, "total": 12} for i, e in enumerate([3, 1, 5, 7])])
    b = _write(tmp_path / "b.jsonl", [{"id": i, "errors": e, "total": 12} for i, e in enumerate([2, 0, 4, 2])])
    [row] = json.loads(_ok(["compare", str(a), str(b), "-t", "wilcoxon", "-f", "json"]))
    ref = stats.wilcoxon([1, 1, 1, 5], [0, 0, 0, 0], method=stats.PermutationMethod())
    assert row["p_value"] == pytest.approx(ref.pvalue, abs=1e-12) and row["details"]["r_minus"] == 10


def test_compare_scores_higher_is_better(tmp_path):
    a = _write(tmp_path / "a.jsonl", [{"id": i, "score": 0.9 + i / 100} for i in range(10)])
    b = _write(tmp_path / "b.jsonl", [{"id": i, "score": 0.5 + i / 100} for i in range(10)])
    [row] = json.loads(_ok(["compare", str(a), str(b), "-t", "sign", "-f", "json"]))
    assert row["better"] == "A" and row["p_value"] == 2 / 1024


def test_compare_without_outcomes_marks_item_tests_undefined(tmp_path):
    a = _write(tmp_path / "a.jsonl", [{"id": "x", "errors": 1}, {"id": "y", "errors": 2}])
    rows = json.loads(_ok(["compare", str(a), str(a), "-f", "json", "--resamples", "9"]))
    by = {r["test"]: r for r in rows}
    assert by["mcnemar"]["p_value"] is None and "outcomes" in by["mcnemar"]["note"]
    assert by["sign"]["p_value"] is None and "tie" in by["sign"]["note"]
    assert "outcomes" in _error(["compare", str(a), str(a), "-t", "mcnemar"])


@pytest.mark.parametrize(("a_text", "b_rows", "message"), [
    ('{"id": "s1", "errors": 1}\nnot json\n', [{"id": "s1", "errors": 1}], "a.jsonl:2: not JSON"),
    ('{"id": "s1"}\n', [{"id": "s1", "errors": 1}], "a.jsonl:1: give exactly one of"),
    ('{"errors": 1}\n', [{"id": "s1", "errors": 1}], "a.jsonl:1: missing or invalid `id`"),
    ('{"id": "s1", "errors": -1}\n', [{"id": "s1", "errors": 1}], "must not be negative"),
    ('{"id": "s1", "errors": 1}\n{"id": "s1", "errors": 2}\n', [{"id": "s1", "errors": 1}], "duplicate id"),
    ('{"id": "s1", "errors": 1}\n', [{"id": "s2", "errors": 1}], "'s1'"),
    ('{"id": "s1", "errors": 1}\n', [{"id": "s1", "score": 1}], "uses `score`"),
    ('{"id": "s1", "errors": 1, "total": 5}\n', [{"id": "s1", "errors": 1, "total": 6}], "total 5"),
    ('{"id": "s1", "errors": 1, "outcomes": [1, 2]}\n', [{"id": "s1", "errors": 1}], "0/1"),
    ('{"id": "s1", "errors": 1, "outcomes": [1, 0]}\n', [{"id": "s1", "errors": 1, "outcomes": [1]}],
     "2 outcomes"),
    ("\n\n", [{"id": "s1", "errors": 1}], "holds no records"),
])
def test_compare_bad_input_is_one_line_error(tmp_path, a_text, b_rows, message):
    a, b = _write(tmp_path / "a.jsonl", a_text), _write(tmp_path / "b.jsonl", b_rows)
    err = _error(["compare", str(a), str(b)])
    assert err.startswith("Error: ") and message in err and err.count("\n") == 1


def test_compare_bad_arguments(ab, tmp_path):
    assert "unknown test" in _error(["compare", *map(str, ab), "--test", "chi"])
    assert "alpha" in _error(["compare", *map(str, ab), "--alpha", "1.5"])
    assert "no such file" in _error(["compare", str(tmp_path / "missing.jsonl"), str(ab[1])])
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe{}")
    assert "not valid UTF-8" in _error(["compare", str(tmp_path / "bin.jsonl"), str(ab[1])])


def test_usage_errors_exit_2(ab):
    err = _error(["compare", *map(str, ab), "--tails", "3"], code=2)
    assert "--tails" in err


def test_report_library_directly(ab):
    data = pair_records(read_records(ab[0]), read_records(ab[1]))
    assert data.measure == "error rate" and not data.higher_is_better
    rows = compare(data, parse_tests("sign, ttest"), CompareOptions(alpha=0.001))
    assert [r["test"] for r in rows] == ["sign", "ttest"]
    assert rows[0]["decision"] == "keep H0" and rows[0]["better"] is None and rows[0]["favours"] == "B"
    assert subset_table(data)[2] == {"id": "s2", "A": 0.2, "B": 0.2, "A-B": 0.0, "better": "tie"}
    with pytest.raises(EvaluationError):
        parse_tests("")
    with pytest.raises(EvaluationError):
        compare(data, ["sign"], CompareOptions(alternative="greater"))
    with pytest.raises(InputError):
        read_records(ab[0].with_name("nope.jsonl"))


# --- signtest-table ---------------------------------------------------------------------------------------


def test_signtest_table_json_and_table():
    rows = json.loads(_ok(["signtest-table", "--format", "json"]))
    assert [r["n"] for r in rows] == list(range(5, 51))
    crit = {r["n"]: r["critical_value"] for r in rows}
    assert crit[5] is None and crit[9] == 1 and crit[25] == 7 and crit[50] == 17
    one = {r["n"]: r["critical_value"] for r in json.loads(_ok(["signtest-table", "--tails", "1", "-f", "json"]))}
    assert one[5] == 0 and one[25] == 7 and one[24] == 7
    out = _ok(["signtest-table", "--alpha", "0.01"])
    assert "alpha = 0.01" in out and "critical_value" in out
    assert "alpha" in _error(["signtest-table", "--alpha", "0"])


# --- segscore ---------------------------------------------------------------------------------------------


def test_segscore_json_and_table(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_bytes(b"the cat sat\r\non the mat\r\n")  # CRLF is tolerated
    pred = tmp_path / "pred.txt"
    pred.write_text("the cat sat\non themat\n", encoding="utf-8")
    scores = json.loads(_ok(["segscore", str(gold), str(pred), "--format", "json"]))
    assert scores["word"]["f1"] == pytest.approx(2 * 0.8 * (4 / 6) / (0.8 + 4 / 6))
    assert scores["boundary"]["recall"] == 0.75 and scores["lines"] == 2
    out = _ok(["segscore", str(gold), str(pred)])
    assert "word" in out and "boundary" in out and "0.7273" in out


def test_segscore_errors_name_the_line(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("a b\nc d\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_text("a b\nc e\n", encoding="utf-8")
    (tmp_path / "short.txt").write_text("a b\n", encoding="utf-8")
    assert "line 2" in _error(["segscore", str(gold), str(tmp_path / "bad.txt")])
    assert "has 2 lines" in _error(["segscore", str(gold), str(tmp_path / "short.txt")])


def test_segscore_reads_stdin_with_one_line_rule(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("a\u2028b c\nd e\n", encoding="utf-8")  # U+2028 is inside a word, not a line end
    res = CliRunner().invoke(app, ["segscore", str(gold), "-", "--format", "json"], input="a\u2028b c\r\nd e\r\n")
    assert res.exit_code == 0, res.output
    scores = json.loads(res.stdout)
    assert scores["lines"] == 2 and scores["word"]["f1"] == 1.0
    assert "both be stdin" in _error(["segscore", "-", "-"])
