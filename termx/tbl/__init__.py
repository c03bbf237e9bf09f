"""Brill's transformation-based learning (seed fig. 5.20–5.22): learn, apply, store, correct word breaking."""

from __future__ import annotations

from termx.tbl.learner import Model, Rule, apply, learn
from termx.tbl.templates import DEFAULT_TEMPLATES, Condition, Template, parse_templates, select_templates

__all__ = ["DEFAULT_TEMPLATES", "Condition", "Model", "Rule", "Template", "apply", "learn", "parse_templates",
           "select_templates"]
