"""Write one published figure as a JSON record under bench/published/ (docs/evaluation.md, "The protocol").

A record holds what a reader needs to judge the figure: the value per seed (or fold) beside their mean and spread,
the date (UTC), the commit and whether the tree had uncommitted changes, the machine's load at the start and the
end of the run, the command that produced it, how the parameters were chosen, and whether the figure follows the
protocol (`status` "protocol") or is a development figure (`status` "development", with the reason). The records
are the only source of docs/figures.md (`python bench/figures.py` writes it).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[1]
PUBLISHED = REPOSITORY / "bench" / "published"
STATUSES = ("protocol", "development", "speed")


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPOSITORY), *args], capture_output=True, text=True,
                          check=False).stdout.strip()


class Run:
    """The circumstances of one bench run: started when created (load, time), closed by `record`."""

    def __init__(self) -> None:
        self.started = time.time()
        self.load_start = [round(x, 2) for x in os.getloadavg()]
        self.command = " ".join(["python", *[a if a else "''" for a in sys.argv]])
        # the code that runs is the code at the start (a record written minutes later must not name a later commit)
        self.commit = _git("rev-parse", "--short=12", "HEAD")
        self.uncommitted = bool(_git("status", "--porcelain", "--untracked-files=no"))

    def record(self, name: str, *, title: str, measure: str, seeds: Sequence[int | str],
               per_seed: Sequence[float], split: str, tuning: str, status: str, reason: str = "",
               extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Write bench/published/<name>.json (the figure = mean over `per_seed`) and return the record."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}")
        if status == "development" and not reason:
            raise ValueError("a development figure needs the reason it is one")
        if len(per_seed) != len(seeds) or not per_seed:
            raise ValueError("one value per seed")
        values = [float(v) for v in per_seed]
        record = {
            "figure": name, "title": title, "measure": measure, "status": status, "reason": reason,
            "mean": statistics.fmean(values),
            "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values), "max": max(values),
            "seeds": list(seeds), "per_seed": values, "split": split, "tuning": tuning,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.started)),
            "seconds": round(time.time() - self.started, 1),
            "commit": self.commit, "uncommitted": self.uncommitted,
            "cpus": os.cpu_count(), "load_start": self.load_start,
            "load_end": [round(x, 2) for x in os.getloadavg()],
            "command": self.command, **(dict(extra) if extra else {}),
        }
        PUBLISHED.mkdir(exist_ok=True)
        path = PUBLISHED / f"{name}.json"
        path.write_text(json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        print(f"{name}: mean {record['mean']:.4f} sd {record['sd']:.4f} over {len(values)} "
              f"({', '.join(f'{v:.4f}' for v in values)}) -> {path.relative_to(REPOSITORY)}", flush=True)
        return record
