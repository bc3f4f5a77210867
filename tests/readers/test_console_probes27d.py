"""Kinds a blind sample of outside logs (probe round 27d, reinforcement learning and generative
models: the repositories find_files lists for ``dqn.log``, ``sac.log``, ``ppo.log``, ``vae.log``,
``diffusion.log``, ``gan.log`` and ``train_rl.log``, labelled before trainlint read them) found read
wrong: a soft actor-critic loop that prints its two losses as bare symbols, ``Q`` (the critic's)
and ``Pi`` (the actor's), beside ``CE``, a cross-entropy term its actor's loss adds in: the CE term,
the one name the reader knew as a part of an objective, had been taken as the loss. Each fixture
is made up in the shape of the real file (repository, path and commit recorded with it; no copied
lines) and asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.base import ReadError

ITERS = 12


def _q(i: int) -> float:
    return round(5000.0 + 900.0 / i, 4)


def _pi(i: int) -> float:
    return round(-8.0 - 40.0 * (1 - 0.6**i), 4)


def _ce(i: int) -> float:
    return round(3.5 + (i % 3) / 10, 4)


def _sac_log(ce: bool = True) -> list[str]:
    """uw-math-ai/PolyArithmeticCircuitsRL sac.log @589a43f3ff3d4b6c2be6db5cd67563ff2b57fe74 (src/SAC
    RL/SAC.py): after wandb's banner, one line per iteration, ``Iter N: SR x%, Q <q_loss>, Pi
    <policy_loss>, CE <ce_loss>, Buffer <size>`` (the CE term is added into the policy loss), then
    five sampled episodes indented under it (``Ex k: Fail (R: -1.00, Steps: 5) Target: ...``)."""
    lines = ["Using device: cuda", "wandb: Syncing run misty-lake-3", "Prefilled replay buffer with 0 synthetic steps"]
    for i in range(1, ITERS + 1):
        term = f", CE {_ce(i):.4f}" if ce else ""
        lines.append(f"Iter {i}: SR {30 + i / 2:.1f}%, Q {_q(i):.4f}, Pi {_pi(i):.4f}{term}, Buffer {4096 * i}")
        lines.append(f"  Ex 1: Fail (R: -1.00, Steps: 5) Target: x{i % 3} + 1")
        lines.append(f"  Ex 2: Success (R: 100.00, Steps: 5) Target: x{i % 3}*x2")
    return lines


def test_bare_actor_critic_losses_beside_a_cross_entropy_term(tmp_path):
    run = _read(tmp_path, _sac_log(), "sac.log")
    assert run.format == "console/general"
    assert run.roles["loss"] == "Pi"
    assert _series(run, "Pi") == (ITERS, 1.0, float(ITERS), _pi(1), _pi(ITERS))
    assert _series(run, "Q") == (ITERS, 1.0, float(ITERS), _q(1), _q(ITERS))
    assert _series(run, "CE")[0] == ITERS


def test_bare_actor_critic_losses_alone(tmp_path):
    """The same loop with no auxiliary term: the actor's Pi beside the critic's Q is still the loss;
    a DQN loop printing its mean Q value and no actor (``Q 12.3``) has none."""
    run = _read(tmp_path, _sac_log(ce=False), "sac.log")
    assert run.roles["loss"] == "Pi"
    assert _series(run, "Pi") == (ITERS, 1.0, float(ITERS), _pi(1), _pi(ITERS))
    dqn = [f"Episode {i}: reward {i * 3}, Q {i * 1.5:.3f}, eps {1 - i / 20:.3f}" for i in range(1, ITERS + 1)]
    with pytest.raises(ReadError):
        _read(tmp_path, dqn, "dqn.log")
