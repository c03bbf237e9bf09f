"""Transformation-based learning on the face: learn Brill rules that turn a word breaker's output into the gold
spacing, store them with the database, apply and show them, as the records of `termx tbl ...` (docs/design.md,
"TBL"). Models belong to the database (any corpus's segmentation can be corrected by one), so these are methods of
`termx.Database`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from termx.defaults import TBL_MIN_SCORE, TBL_TEMPLATE_SET

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.progress import Progress
    from termx.tbl.learner import Model

RULE_FIELDS = ("ord", "rule", "score", "good", "bad")
"""The fields of a rule that `termx tbl rules` shows in a table (the records hold template, tags and args too)."""


class TblModels:
    """The TBL capability of a Database (needs its `engine`)."""

    engine: Engine

    def tbl_learn(self, name: str, gold: Sequence[str], pred: Sequence[str], *, min_score: int = TBL_MIN_SCORE,
                  max_rules: int | None = None, templates: Iterable[str] | None = None, replace: bool = False,
                  progress: Progress | None = None) -> dict[str, Any]:
        """Learn rules that turn the lines `pred` into the spaced lines `gold`, store them as model `name`
        (`replace` overwrites one), and return the model's record (tbl_model). `templates`: names from the
        chars8_tags set (default: Brill's 23)."""
        from termx.tbl.model_store import save_model
        from termx.tbl.segmentation import train_segmentation_corrector
        from termx.tbl.templates import DEFAULT_TEMPLATES, TEMPLATE_SETS, select_templates

        chosen = DEFAULT_TEMPLATES if templates is None else select_templates(templates, TEMPLATE_SETS["chars8_tags"])
        model = train_segmentation_corrector(gold, pred, templates=chosen, min_score=min_score, max_rules=max_rules,
                                             progress=progress)
        save_model(self.engine, name, model, replace=replace)
        return model_record(name, model)

    def tbl_corrector(self, name: str) -> Callable[[Sequence[str]], list[str]]:
        """lines -> the lines corrected by stored model `name`'s rules, applied in order (`termx tbl apply`)."""
        from termx.tbl.model_store import load_model
        from termx.tbl.segmentation import correct_segmentation

        model = load_model(self.engine, name)
        return lambda lines: correct_segmentation(model, lines)

    def tbl_model(self, name: str) -> dict[str, Any]:
        """Stored model `name` (`termx tbl rules --format json`): name, positions, n_rules, training accuracy
        before/after, and its rules in order."""
        from termx.tbl.model_store import load_model

        return model_record(name, load_model(self.engine, name))

    def tbl_models(self) -> list[dict[str, Any]]:
        """The stored TBL models with their training accuracy before/after (`termx tbl models`)."""
        from termx.tbl.model_store import list_models

        return list_models(self.engine)

    @staticmethod
    def tbl_templates(set_name: str = TBL_TEMPLATE_SET) -> list[dict[str, str]]:
        """The templates of a built-in set (brill, chars4, chars4_tags, chars8, chars8_tags), name and conditions,
        in tie-breaking order."""
        from termx.tbl.templates import template_set

        return [{"name": t.name, "conditions": " ".join(c.spec for c in t.conditions)} for t in template_set(set_name)]


def model_record(name: str, model: Model) -> dict[str, Any]:
    """A model's summary and its rules, readably, with their training scores (good − bad)."""
    rules = [{"ord": i + 1, "rule": model.describe(r), "template": r.template.name, "from_tag": r.from_tag,
              "to_tag": r.to_tag, "args": list(r.args), "score": r.score, "good": r.good, "bad": r.bad}
             for i, r in enumerate(model.rules)]
    return {"name": name, "positions": model.n_positions, "n_rules": len(model.rules),
            "accuracy_before": round(model.accuracy_before, 6), "accuracy_after": round(model.accuracy_after, 6),
            "rules": rules}
