"""Inspectors: each module registers the kinds of input it recognises and judges."""

# Modules that register no inspector: the judging code behind the commands and the inspectors,
# imported where it is used. Discovery does not import them (10 ms of every start).
NOT_PLUGINS = frozenset(
    {
        "checkpoint_command",
        "checkpoint_judge",
        "comparison",
        "dataset_handoff",
        "dataset_judge",
        "environment",
        "environment_gather",
        "run_data",
        "runfold",
        "tokenizer_folder",
    }
)
