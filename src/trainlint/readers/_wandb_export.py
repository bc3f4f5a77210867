"""A W&B panel's "Export CSV": its x-axis column (``Step``, ``epoch``) and, for each run drawn,
``<run> - <metric>`` with the panel's band ``<run> - <metric>__MIN`` / ``__MAX`` beside it
(``Group: <group> - <metric>`` for a grouped panel). The band is no metric of its own; one run's
columns are named by their metric; an export of several runs judges the first (said in a note),
never their sum."""

from __future__ import annotations

import re

from ..model import Run
from ..roles import role_of

_COLUMN = re.compile(r"^(?:Group: )?(.+?) - (.+?)(__MIN|__MAX)?$")


def wandb_export(run: Run, header: list[str]) -> bool:
    """Shape ``run`` as the export its ``header`` says it is; False for any other table."""
    found = [_COLUMN.match(c) for c in header[1:]]
    if len(header) < 2 or not all(found) or not any(m[3] for m in found if m):
        return False
    columns = [(c, m[1], m[2]) for c, m in zip(header[1:], found) if m and not m[3]]
    for c, m in zip(header[1:], found):
        if m and m[3]:
            run.series.pop(c, None)
    runs = list(dict.fromkeys(name for _, name, _ in columns))
    run.meta["written_by"] = "wandb-export"
    run.meta["wandb_runs"] = runs
    if len(runs) == 1:
        for column, _, metric in columns:
            if column in run.series and metric not in run.series:
                series = run.series.pop(column)
                series.name = metric
                run.series[metric] = series
        return True
    first = [(c, metric) for c, name, metric in columns if name == runs[0] and c in run.series]
    for role, key in (("loss", "objective"), ("eval_loss", "eval_objective")):
        pick = next((c for c, metric in first if role_of(metric) == role), None)
        if pick is not None:
            run.meta[key] = pick
            run.meta[f"{key}_why"] = f"the first of the {len(runs)} runs in the W&B export"
    run.notes.append(
        f"a W&B export of {len(runs)} runs ({', '.join(runs[:4])}{', ..' if len(runs) > 4 else ''}): "
        f"the first judged; --map loss='<run> - <metric>' for another"
    )
    return True
