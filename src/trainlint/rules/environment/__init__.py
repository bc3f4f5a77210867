"""Environment and training-configuration rules (TL400-TL449), judging plain facts.

Groups by code: TL400-409 entrypoint import, TL410-419 resources, TL420-429
accelerators, TL430-434 package versions, TL435-449 training configuration. The subject
is :class:`trainlint.environment.facts.Subject`; each rule raises NotChecked when the part
it judges was not gathered.
"""

from __future__ import annotations

from . import accelerators, entrypoint, resources, training_config, versions
from .accelerators import visible_devices
from .common import gib, mib

__all__ = ["accelerators", "entrypoint", "gib", "mib", "resources", "training_config", "versions", "visible_devices"]
