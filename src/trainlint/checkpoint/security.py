"""Classify the globals a pickle would import: allowed by torch's weights_only
loader, a known way to run code, a framework class (refused by weights_only but
usual in training checkpoints), or unknown.

The allow-list is data (``trainlint/data/torch_weights_only_allowlist.json``),
read from torch's own loader once and shipped; torch is never imported here.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

ALLOWED, FRAMEWORK, DANGEROUS, UNKNOWN = "allowed", "framework", "dangerous", "unknown"

# Modules whose every member runs code, touches the system or unpickles again.
DANGEROUS_MODULES = {
    "os",
    "posix",
    "nt",
    "sys",
    "subprocess",
    "pty",
    "shutil",
    "socket",
    "runpy",
    "importlib",
    "ctypes",
    "code",
    "codeop",
    "commands",
    "pickle",
    "_pickle",
    "marshal",
    "webbrowser",
    "multiprocessing",
    "signal",
    "platform",
    "pdb",
    "bdb",
    "timeit",
    "trace",
    "profile",
    "cProfile",
    "operator",
    "functools",
    "types",
    "inspect",
    "distutils",
    "setuptools",
    "pip",
    "venv",
    "zipimport",
    "urllib",
    "http",
    "requests",
    "smtplib",
    "ftplib",
    "telnetlib",
    "asyncio",
    "threading",
    "_thread",
    "tempfile",
    "glob",
    "io",
    "_io",
    "sysconfig",
    "site",
    "ensurepip",
    "dill",
    "cloudpickle",
    "joblib",
    "yaml",
    "builtins.__import__",
    "_posixsubprocess",
    "pydoc",
}
DANGEROUS_NAMES = {
    "builtins.eval",
    "builtins.exec",
    "builtins.compile",
    "builtins.__import__",
    "builtins.getattr",
    "builtins.setattr",
    "builtins.delattr",
    "builtins.open",
    "builtins.input",
    "builtins.breakpoint",
    "builtins.globals",
    "builtins.locals",
    "builtins.vars",
    "builtins.apply",
    "builtins.execfile",
    "builtins.memoryview",
    "builtins.type",
    "numpy.testing._private.utils.runstring",
    "numpy.load",
    "numpy.lib.npyio.load",
    "torch.load",
    "torch.save",
    "torch.serialization.load",
    "torch.storage._load_from_bytes",
    "torch.jit.load",
    "torch._C._jit_pass_inline",
}
DANGEROUS_PREFIXES = (
    "torch.hub",
    "torch.package",
    "torch.utils.cpp_extension",
    "torch._dynamo",
    "torch._inductor",
    "torch.ops",
    "torch._ops",
    "torch.distributed.rpc",
    "numpy.f2py",
    "numpy.distutils",
    "numpy.ctypeslib",
    "numpy.testing",
)
FRAMEWORK_ROOTS = {
    "numpy",
    "torch",
    "transformers",
    "lightning",
    "pytorch_lightning",
    "lightning_fabric",
    "accelerate",
    "peft",
    "omegaconf",
    "deepspeed",
    "argparse",
    "enum",
    "datetime",
    "decimal",
    "fractions",
    "collections",
    "pathlib",
    "trl",
    "diffusers",
    "timm",
    "tokenizers",
    "bitsandbytes",
    "megatron",
    "apex",
    "uuid",
    "copyreg",
    "builtins",
    "_codecs",
    "numbers",
    "re",
}
FRAMEWORK_FUNCS = {
    "numpy.core.multiarray._reconstruct",
    "numpy._core.multiarray._reconstruct",
    "numpy.core.multiarray.scalar",
    "numpy._core.multiarray.scalar",
    "numpy.random._pickle.__randomstate_ctor",
    "numpy.random._pickle.__bit_generator_ctor",
    "numpy.random._pickle.__generator_ctor",
    "numpy.dtype",
    "numpy.ndarray",
    "numpy.core.multiarray.dtype",
    "numpy.ma.core._mareconstruct",
    "copyreg._reconstructor",
    "copyreg.__newobj__",
    "builtins.slice",
    "builtins.range",
    "builtins.frozenset",
    "builtins.dict",
    "builtins.list",
    "builtins.tuple",
    "builtins.int",
    "builtins.float",
    "builtins.str",
    "builtins.bytes",
    "builtins.object",
    "builtins.bool",
    "re._compile",
    "_codecs.decode",
}


@lru_cache(maxsize=1)
def allowlist() -> tuple[frozenset[str], str]:
    """(allowed dotted names, torch version they were read from)."""
    text = resources.files("trainlint").joinpath("data/torch_weights_only_allowlist.json").read_text("utf-8")
    doc = json.loads(text)
    return frozenset(doc["allowed"]), str(doc.get("torch_version", "?"))


def classify(module: str, name: str, extra_allowed: tuple[str, ...] = ()) -> str:
    """One of ALLOWED, DANGEROUS, FRAMEWORK, UNKNOWN for the global ``module.name``."""
    dotted = f"{module}.{name}"
    if module.startswith("<"):  # computed STACK_GLOBAL or copyreg extension: cannot be known
        return DANGEROUS
    if dotted in allowlist()[0]:
        return ALLOWED
    root = module.split(".")[0]
    if (
        dotted in DANGEROUS_NAMES
        or root in DANGEROUS_MODULES
        or module in DANGEROUS_MODULES
        or dotted.startswith(DANGEROUS_PREFIXES)
        or root == "__builtin__"
    ):
        return DANGEROUS
    if extra_allowed and dotted.startswith(extra_allowed):
        return ALLOWED
    if dotted in FRAMEWORK_FUNCS:
        return FRAMEWORK
    if root in FRAMEWORK_ROOTS and root != "builtins" and _class_like(name, module):
        return FRAMEWORK
    return UNKNOWN


def _class_like(name: str, module: str) -> bool:
    """A class (CamelCase leaf name): constructed by the loader, not a free function."""
    return name.split(".")[-1][:1].isupper()
