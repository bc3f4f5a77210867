"""Environment facts: probes of the machine, installed versions, GPUs, the user's entrypoint and
training configuration, gathered into a :class:`facts.Subject` (judged by ``rules.environment``)."""

GIB = 1024**3
MIB = 1024**2
