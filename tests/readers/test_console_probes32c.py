"""Kinds a blind sample of outside logs (probe round 32c: logs a mechanical scan of mirrored
repositories found, labelled for which series is the training loss before trainlint read them)
found read wrong: a Julia loop's prints that part a tag, a name and its value by bars
(``ODE | loss | 0.2007``) had not been read as pairs, so the loss was taken from the one pair
printed with a colon beside them (``ODE | error: 0.63``, the signed residual) as an old loop's
training error; the wandb client's ``Run summary:`` block at the end of a console log
(``wandb:         total_loss 1.50197``) had read as one evaluation record, its ``total_loss`` the
eval loss. Each fixture is made up in the shape of the real file (repository, path and the
scanned file's blob recorded with it; no copied lines) and asserts the series read: names, steps,
first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

EPOCHS = 2
ITERS = 12


def _sample_loss(k: int) -> float:
    """The per-sample loss at record ``k`` (from 0): noisy, falling from about 0.4."""
    return round(0.4 / (1.0 + 0.1 * k) + 0.05 * (k % 3), 6)


def _residual(k: int) -> float:
    """The signed residual ``yhat - y`` printed as ``error`` (its sign swings)."""
    return round((-1.0) ** k * (0.3 + 0.01 * k), 6)


def _neural_ode_log() -> list[str]:
    """rajiv256/NeuralCRNGen julia/neuralode.log (scanned blob 9687271aa2504b8c44cad3ab3bdcc8f9adbe435d,
    Julia ``println``): a ruled ``EPOCH: e | ITERATION: i`` header, then ``ODE | name | value`` lines
    (vectors and scalars, names of one word or several), the loss as ``ODE | loss | x``, the
    residual as ``ODE | error: x``, gradients and the parameters after the update."""
    lines = ["Any[3.0f0, 1.0, 1.0, 0.1, 0.1, 0.6]"]
    for e in range(1, EPOCHS + 1):
        for i in range(1, ITERS + 1):
            k = (e - 1) * ITERS + i - 1
            lines.append(f"=========EPOCH: {e} | ITERATION: {i} ===========")
            lines.append(f"ODE | Input: [{0.01 * i:.4f}, {-0.02 * i:.4f}, 0.0] | Target: {float(i % 2)}")
            lines.append("ODE | params before | Any[3.0f0, 1.0, 1.0, 0.1, 0.1, 0.6]")
            lines.append(f"ODE | z at t=T | [{0.1 * i:.4f}; 0.2; 0.3;;]")
            lines.append(f"ODE | yhat at t=T | {0.5 + 0.01 * i}")
            lines.append(f"ODE | y | {float(i % 2)}")
            lines.append(f"ODE | loss | {_sample_loss(k)}")
            lines.append(f"ODE | error: {_residual(k)}")
            lines.append(f"ODE | gdt | [{0.7 - 0.01 * i};;]")
            lines.append("ODE | params after | Any[3.0f0, 1.0001, 0.9999, 0.1002, 0.0998, 0.6]")
    return lines


def test_a_tag_name_and_value_parted_by_bars_are_a_pair(tmp_path):
    run = _read(tmp_path, _neural_ode_log(), "neuralode.log")
    assert run.format == "console/general" and run.roles["loss"] == "loss"
    n = EPOCHS * ITERS
    assert _series(run, "loss") == (n, 1.0, float(n), _sample_loss(0), _sample_loss(n - 1))
    assert _series(run, "error") == (n, 1.0, float(n), _residual(0), _residual(n - 1))


def _policy_value(e: int) -> tuple[float, float]:
    """An AlphaZero-style loop's policy and value losses at epoch ``e`` (from 1)."""
    return round(0.2 / (1.0 + 0.05 * e), 4), round(6.0 / (1.0 + 0.1 * e), 4)


def _curriculum_log(epochs: int = 30) -> list[str]:
    """uw-math-ai/PolyArithmeticCircuitsRL opentensor12-01/codes/scripts/runs/train_curriculum.log
    (scanned blob e64bb7578398a015266960cf2b260331401472b7, plain prints and the wandb client's own
    lines): an epoch header, episodes generated, ``Epoch e: policy_loss=.., value_loss=.., ...``;
    at the end wandb's ``Run history:`` sparklines and ``Run summary:`` of each series' last value
    (``total_loss``, the weighted sum the script optimises, printed only there), then its sync notices."""
    lines = ["wandb: Tracking run with wandb version 0.23.0", "Using device: cuda"]
    for e in range(1, epochs + 1):
        pol, val = _policy_value(e)
        lines += [
            f"Epoch {e}/{epochs} - Max terms range: (3, 3)",
            "  Generating 64 episodes...",
            f"  Training on {290 + e} samples...",
        ]
        lines.append(
            f"  Epoch {e}: policy_loss={pol:.4f}, value_loss={val:.4f}, avg_reward=-4.{e % 9}, success_rate=3.12%"
        )
    pol, val = _policy_value(epochs)
    lines += ["wandb: ", "wandb: Run history:", "wandb:  policy_loss ▅▅▆█▄▃▆▅▄", "wandb:   total_loss ▃▄▁▄▅▁▄▃▄"]
    lines += ["wandb: ", "wandb: Run summary:", f"wandb:        epoch {epochs}", f"wandb:  policy_loss {pol}"]
    lines += [
        f"wandb:   total_loss {round(pol + 0.5 * val, 5)}",
        "wandb: ",
        "wandb: Synced 5 W&B file(s), 0 media file(s)",
    ]
    return lines


def test_the_wandb_clients_run_summary_is_no_evaluation(tmp_path):
    run = _read(tmp_path, _curriculum_log(), "train_curriculum.log")
    assert run.format == "console/general" and run.roles["loss"] == "policy_loss+value_loss"
    assert "eval_loss" not in run.roles and not any(n.startswith("eval_") for n in run.series)
    first, last = _policy_value(1), _policy_value(30)
    assert _series(run, "policy_loss") == (30, 1.0, 30.0, first[0], last[0])
    assert _series(run, "value_loss") == (30, 1.0, 30.0, first[1], last[1])


def test_a_counter_that_is_no_finite_number_leaves_the_log_read(tmp_path):
    """Met while checking the bar-parted pairs above on hostile lines: a counter's value that is no
    finite number (``epoch: nan``, a count of thousands of digits, cut by the line limit) had raised
    from the line reader, and the whole log read as no training log; the value is no count now."""
    lines = [f"step: {i}, loss: {2.0 / (1 + i):.4f}, acc: {0.5 + i / 100:.2f}" for i in range(1, 21)]
    lines[10:10] = ["epoch: nan", "step | " + "1" * 5000]
    run = _read(tmp_path, lines, "train.log")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 1.0, 20.0, 1.0, round(2.0 / 21, 4))
