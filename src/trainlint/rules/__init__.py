"""Rules. Every module here registers its rules with :func:`trainlint.registry.rule`;
the registry imports them. Modules starting with ``_`` are helpers.

``MODULES`` names the modules holding each target's rules, so that judging a log imports the
log rules only (the registry imports every module when it needs them all). A test checks it
against the rules the modules register."""

MODULES: dict[str, tuple[str, ...]] = {
    "log": (
        "blowup",
        "chance",
        "crash",
        "data_floor",
        "divergence",
        "entropy",
        "generalization",
        "gradients",
        "integrity",
        "leakage",
        "lr",
        "nan",
        "overfit",
        "recovery",
        "resume",
        "spikes",
        "stagnation",
        "stall",
        "timing",
        "unbounded",
    ),
    "live": ("live",),
    "dataset": ("data",),
    "tokenizer": ("tokenizer",),
    "checkpoint": ("archive_safety", "checkpoint", "security"),
    "environment": ("environment",),
    "comparison": ("compare",),
}
