"""Kinds a blind sample of outside logs (probe round 22b: the first repositories find_files lists for
``training_output.txt``, labelled before trainlint read them) found read short: a PPO loop's
per-episode summary block (``Episode 5 完成`` header, then ``- Policy Loss: ..`` lines) with another
thread's warnings printed twice between the header and the block, which had made the block a record
a line and its losses an evaluation. Each fixture is made up in the shape of the real file (repository, path and
commit recorded with it; no copied lines) and asserts what is read."""

from __future__ import annotations

from _consolekit import series_ends as _series

from trainlint.api import read_run

EPISODES = 15
RULE = "=" * 70


def _losses(e: int) -> tuple[float, float]:
    """(policy loss, value loss) of episode ``e``, falling."""
    return round(0.08 * 0.9**e, 4), round(3.5 * 0.85**e, 4)


def _warning(actor: int) -> str:
    return f"WARNING: attempting to unsubscribe from stream but sensor wasn't listening: Actor {actor} (sensor.camera.rgb) "


def _episode(e: int) -> list[str]:
    """Andrea010725/SAC_carla training_output.txt @76dc92cc: after each episode a block under an
    ``Episode N 完成`` header between rules: the episode's ``当前: Reward=.., Length=.., Speed=..`` line,
    then ``最近10个平均:`` and one ``- Name: value`` line a metric. The simulator's thread writes its
    warnings into the same file; some land between the header and the block (the first glued to the
    rule, as the real file has it)."""
    policy, value = _losses(e)
    stray = e % 4 == 1
    lines = [RULE, f"Episode {e} 完成"]
    if stray:
        lines += [RULE + _warning(24000 + 7 * e), "2025-12-10 21:39:24,199 - INFO - Starting new episode"]
        lines += [_warning(24001 + 7 * e), ""]
    else:
        lines.append(RULE)
    lines += [
        f"  当前: Reward={-120 + 5 * e:.2f}, Length={500 - 10 * e}, Speed={0.5 + 0.1 * e:.2f} m/s",
        "  最近10个平均:",
        f"    - Reward: {-100 + 3 * e:.2f}",
        f"    - Length: {400 - 5 * e}",
        f"    - Policy Loss: {policy:.4f}",
        f"    - Value Loss: {value:.4f}",
        f"    - Entropy: {1.2 - 0.01 * e:.4f}",
        f"    - Speed: {1.0 + 0.05 * e:.2f} m/s",
        f"    - Collision Rate: {0.3 + 0.01 * e:.2f}%",
        RULE,
        "",
        f"Episode {e + 1} terminated after 500 timesteps in 54.8s with reward {-118 + e:.3f}.",
        "Update took 1.46s",
    ]
    return lines


def test_stray_warnings_under_an_episode_header_leave_the_summary_block_one_record(tmp_path):
    path = tmp_path / "training_output.txt"
    path.write_text("\n".join(line for e in range(1, EPISODES + 1) for line in _episode(e)) + "\n", encoding="utf-8")
    run = read_run(path)
    first, last = _losses(1), _losses(EPISODES)
    assert _series(run, "Policy_Loss") == (EPISODES, 1.0, float(EPISODES), first[0], last[0])
    assert _series(run, "Value_Loss") == (EPISODES, 1.0, float(EPISODES), first[1], last[1])
    assert run.roles["loss"] == "Policy_Loss+Value_Loss"
    assert not any(name.startswith("eval_") for name in run.series)
    assert "eval_loss" not in run.roles
