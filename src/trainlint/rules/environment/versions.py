"""Environment rules, group versions: TL430-TL434: installed package versions."""

from __future__ import annotations

import sys

from ...registry import Context, rule
from ...verdict import Finding
from .common import BASE, _part

E = dict(**BASE, group="versions")


@rule(
    code="TL430",
    name="known-bad-versions",
    severity="FAIL",
    **E,
    summary="An installed combination of package versions is known to break.",
    explanation="""
Installed versions of torch, transformers, accelerate, peft, trl, lightning, deepspeed and
numpy are read from package metadata (none is imported) and matched against the small table in
trainlint/data/known_bad.toml; each entry carries its reason and a source link. The severity
is the entry's.""",
)
def known_bad_versions(ctx: Context) -> list[Finding]:
    v = _part(ctx, "versions", "package versions were not read")
    from ...environment.versions import matches, normalize

    out = []
    for bad in ctx.subject.known_bad or []:
        if bad.get("platform") and not sys.platform.startswith(str(bad["platform"])):
            continue
        when = {normalize(k): str(s) for k, s in dict(bad.get("when", {})).items()}
        if not when or not all(k in v.installed and matches(v.installed[k], s) for k, s in when.items()):
            continue
        have = ", ".join(f"{k} {v.installed[k]}" for k in when)
        out.append(
            ctx.fire(
                f"{have}: {bad.get('reason')} ({bad.get('source')})",
                severity=str(bad.get("severity", "WARN")).upper(),
                id=bad.get("id"),
                installed={k: v.installed[k] for k in when},
                when=when,
                source=bad.get("source"),
            )
        )
    return out


@rule(
    code="TL431",
    name="unmet-declared-requirement",
    severity="WARN",
    **E,
    summary="A key package declares a version requirement on another that the installed one misses.",
    explanation="""
Each installed key package's own Requires-Dist metadata (including the requirements of an
extra such as transformers[torch], when the required package is installed) is checked against
the installed versions of the other key packages. `pip install --no-deps`, conda/pip mixing and
manual upgrades leave such mismatches; the package may then refuse to work or disable features.""",
)
def unmet_declared_requirement(ctx: Context) -> list[Finding]:
    v = _part(ctx, "versions", "package versions were not read")
    from ...environment.versions import matches, requirement

    out = []
    for pkg, lines in sorted(v.requires.items()):
        for line in lines:
            req = requirement(line)
            if req is None or req[0] not in v.installed or not req[1]:
                continue
            name, spec, extra = req
            if matches(v.installed[name], spec) is False:
                via = f" (extra '{extra}')" if extra else ""
                out.append(
                    ctx.fire(
                        f"{pkg} {v.installed[pkg]} requires {name}{spec}{via}, but {name} "
                        f"{v.installed[name]} is installed",
                        package=pkg,
                        requires=f"{name}{spec}",
                        extra=extra,
                        installed=v.installed[name],
                    )
                )
    return out


# --- training configuration -----------------------------------------------------------------
