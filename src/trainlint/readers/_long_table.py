"""A metric table in long form: one metric per row, its name in one column and its value in
another (``step,metric,value``). TensorBoard's data frame of an experiment's scalars
(``run,tag,step,value``), MLflow's metric history (``key,value,timestamp,step``) and a pandas
``melt`` write it. The rows are pivoted into one series per name. A run named after its split
(TensorBoard's ``train`` and ``validation`` runs of a Keras fit) prefixes each name it holds
(``validation/epoch_loss``); of other runs (a sweep's), the first in the table is read and the
rest are counted, since their curves are no one run's."""

from __future__ import annotations

import msgspec

from ..roles import role_of
from ._scalar_export import RUN_SPLIT

NAME_COLUMNS = frozenset(("metric", "name", "key", "tag", "metric_name"))
VALUE_COLUMNS = frozenset(("value", "metric_value"))
_OTHER_COLUMNS = frozenset(("run", "timestamp", "wall_time", "wall time", "time", "epoch"))


class LongLayout(msgspec.Struct):
    """Where a long table keeps a row's name, value and run, and how many rows each name had
    (its step where the table has no step column)."""

    name_col: int
    value_col: int
    run_col: int | None = None
    counts: dict[str, int] = msgspec.field(default_factory=dict)
    first_run: str | None = None  # the first run that is no split
    others: set[str] = msgspec.field(default_factory=set)  # the runs after it, not read

    @classmethod
    def of(cls, header: list[str], step_columns: tuple[str, ...]) -> LongLayout | None:
        """The layout of a long table's header; None for any other table (a column that is
        neither the name, the value, a run, a clock nor a counter makes it a wide one)."""
        lower = [c.strip().lower() for c in header]
        names = [i for i, c in enumerate(lower) if c in NAME_COLUMNS]
        values = [i for i, c in enumerate(lower) if c in VALUE_COLUMNS]
        known = NAME_COLUMNS | VALUE_COLUMNS | _OTHER_COLUMNS | set(step_columns)
        if len(names) != 1 or len(values) != 1 or not all(c in known for c in lower):
            return None
        return cls(names[0], values[0], lower.index("run") if "run" in lower else None)

    def name_of(self, row: list[str]) -> str | None:
        """The series a row adds to, None for a row of a run not read or with no name."""
        name = row[self.name_col].strip()
        if not name:
            return None
        if self.run_col is None:
            return name
        run = row[self.run_col].strip()
        if (split := RUN_SPLIT.search(run)) is not None:
            return f"{split[1]}/{name}"
        if self.first_run is None:
            self.first_run = run
        if run == self.first_run:
            return name
        self.others.add(run)
        return None

    def count(self, name: str) -> int:
        """The row's rank among its name's rows (1 for the first)."""
        self.counts[name] = self.counts.get(name, 0) + 1
        return self.counts[name]


def names_a_metric(layout: LongLayout, rows: list[list[str]]) -> bool:
    """Whether a row of the table names a training metric (the sniff's evidence)."""
    for row in rows:
        if len(row) > layout.name_col:
            name = row[layout.name_col].strip()
            if "loss" in name.lower() or role_of(name) is not None:
                return True
    return False
