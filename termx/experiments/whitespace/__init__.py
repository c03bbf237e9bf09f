"""The slides' white space recovery experiment, end to end: delete the white space of spaced text, index the
de-spaced documents, break them into words with no dictionary, and score against the original spacing.

Conditions: `alnum` lower-cases every white-space token and keeps only its letters and digits (tokens left
empty are dropped), so no punctuation hints remain; `raw` deletes only the white space. The first `eval_docs`
documents are scored (boundaries inside a scored line; words SIGHAN style, both ends right); every document
is unlabelled context in the index. Pseudo-documents: `lines_per_doc` consecutive lines form one document
(df_k needs documents) while each line is still segmented and scored on its own.

The TBL step (`tbl=TblSettings()`, `termx whitespace --tbl`): per scorer, Brill's learner is trained on the
scorer's output for a deterministic sample of the context documents (their spacing is free supervision; never an
evaluated document), and the rules, applied to the scorer's output on the evaluation documents, give an extra
result `<scorer>+tbl` (kind "tbl") with paired tests against the scorer.

Modules: documents (conditions, gold words), run, segment, report (result dataclasses, scoring), tbl, files
(result files), store (termx.seg_run / seg_score).
"""

from termx.evaluation.baselines import letter_change_words
from termx.experiments.whitespace.documents import Condition, SpacedDocument, gold_words, spaced_documents
from termx.experiments.whitespace.files import write_records
from termx.experiments.whitespace.report import ScorerResult, TblResult, WhitespaceReport
from termx.experiments.whitespace.run import BASELINES, run_whitespace
from termx.experiments.whitespace.run_store import store_run, stored_scores
from termx.experiments.whitespace.tbl import TBL_SEED, TBL_TESTS, TblSettings, tbl_training_sample

__all__ = ["BASELINES", "TBL_SEED", "TBL_TESTS", "Condition", "ScorerResult", "SpacedDocument", "TblResult",
           "TblSettings", "WhitespaceReport", "gold_words", "letter_change_words", "run_whitespace",
           "spaced_documents", "store_run", "stored_scores", "tbl_training_sample", "write_records"]
