"""The key-value tables Stable-Baselines3 prints (its logger's ``HumanOutputFormat``; OpenAI
Baselines, which it descends from, prints the same without the tags).

Each ``logger.dump()`` writes one table between two lines of dashes, a row ``| key | value |``
per value, the keys grouped under their tag (``| train/ |  |`` then ``|    loss | 0.5 |``):

    ---------------------------------
    | rollout/           |          |
    |    ep_rew_mean     | 22.4     |
    | time/              |          |
    |    total_timesteps | 2048     |
    | train/             |          |
    |    loss            | 5.67     |
    |    value_loss      | 41.2     |
    ---------------------------------

A metric is named ``tag/key`` (``train/value_loss``), as SB3 names it; the step is
``time/total_timesteps`` (the environment steps so far), else the table's place. ``train/loss`` is
the loss the algorithm minimises where it logs one (PPO: its policy, value and entropy terms
together; DQN: the TD loss). An algorithm that logs only the losses of its parts (A2C's
``policy_loss`` and ``value_loss``, SAC's and TD3's ``actor_loss`` and ``critic_loss``: two
networks, two optimisers) has no one loss: none is taken, and the note says why.
"""

from __future__ import annotations

from .text import NUM, Capture, Line, lazy_regex

_DASHES = lazy_regex(r"^\s*-{9,}\s*$")
# (a line's leading "| " may have gone with a prefix every line carries: a timestamp, a pipe's)
_ROW = lazy_regex(r"^(?:\s*\| )?(\S.*?|\s+\S.*?)\s*\| (.*?)\s*\|\s*$")
_VALUE = lazy_regex(r"^%s$" % NUM)


def sb3_tables(lines: list[Line]) -> Capture | None:
    """Every table of a Stable-Baselines3 (or Baselines) console log, one point each."""
    tables: list[tuple[int, dict[str, float]]] = []
    current: dict[str, float] = {}
    first, tag, inside = 0, "", False
    for line in lines:
        text = line.final
        if _DASHES.match(text):
            if current:
                tables.append((first, current))
            current, first, tag, inside = {}, line.no, "", True
            continue
        m = _ROW.match(text) if inside else None
        if m is None:  # (a progress bar's redraw between two rows is no part of the table)
            continue
        key, value = m[1], m[2]
        if not value and key.endswith("/"):
            tag = key
        elif _VALUE.match(value):
            name = tag + key.strip() if tag and key.startswith("   ") else key.strip()
            current[name] = float(value)
    return _capture(tables)


# openai/improved-diffusion and guided-diffusion (and their many forks) copy Baselines' logger: each
# ``logger.dumpkvs()`` table holds ``step`` and ``samples`` (the step and the images seen), its row
# printed after the values it closes.
_DIFFUSION_KEYS = ("step", "samples")


def _diffusion(tables: list[tuple[int, dict[str, float]]]) -> bool:
    return all(all(k in t for k in _DIFFUSION_KEYS) for _, t in tables)


def _capture(tables: list[tuple[int, dict[str, float]]]) -> Capture | None:
    steps_key = next((k for k in ("time/total_timesteps", "total_timesteps") if any(k in t for _, t in tables)), None)
    diffusion = steps_key is None and len(tables) >= 2 and _diffusion(tables)
    steps_key = "step" if diffusion else steps_key
    if len(tables) < 2 or (steps_key is None and not any(k.startswith("train/") for _, t in tables for k in t)):
        return None  # an SB3 table has its tags or its step counter
    cap = Capture("stable-baselines3")
    for i, (no, table) in enumerate(tables):
        step = table.get(steps_key, float(i + 1)) if steps_key else float(i + 1)
        cap.add_all(step, {k: v for k, v in table.items() if k != steps_key})
        cap.lines.append(no)
    if steps_key is None:
        cap.notes.append("no total_timesteps in the tables: steps from their order")
    names = list(cap.cols)
    total = next((n for n in ("train/loss", "loss") if n in names), None)
    if diffusion:  # a diffusion model's terms (mse, vb, their quartiles): the roles layer chooses
        cap.notes.append("Baselines' logger tables of a diffusion trainer (step and samples rows): steps from 'step'")
        return cap
    if total is not None:
        cap.meta["objective"] = total
        cap.meta["objective_why"] = f"Stable-Baselines3's {total}: the one loss the algorithm minimises"
        return cap
    parts = [n for n in names if "loss" in n.lower()]
    cap.meta["no_loss"] = (
        f"the algorithm logs the losses of its parts apart ({', '.join(parts)}) and no train/loss; none of them "
        "is the model's loss"
        if parts
        else "the tables hold no loss"
    )
    return cap


RECOGNISERS = ((sb3_tables, "| "),)
