"""Kinds a blind sample of outside logs (probe round 24a: the first twelve training logs that
find_files lists for ``train_log.txt``, labelled before trainlint read them) found read wrong: a
Hugging Face Trainer run written with ``python train.py > log 2>&1``, its dicts printed in one
block after the bars (stdout buffered, the bars unbuffered on stderr), had read at the dicts'
order (steps 1, 2, 3, ...) while the bar's total (the planned optimizer steps) stayed the plan, so
a run that stopped at a third of its plan read as stopped at under 1%. The Trainer writes each
dict through ``tqdm.write``, which clears the bar and draws it again at the same count: the k-th
dict is placed at the k-th count drawn twice. And a log of several launches of one script
appended to one file (``Episode 1/10`` .. ``Episode 10/10`` after each banner) had read at the
records' order, the launches as one run, as the episode count fell back more often than a
relaunch allows: a count that ran to the total it printed and began again at the first is a
new launch, judged apart. Each fixture is made up in the shape of the real
file (repository, path and commit recorded with it; no copied lines) and asserts the series
read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import judge

TOTAL = 6000  # the bar's total: the planned optimizer steps
LOGGING_STEPS = 20
FLUSHED = 24  # dicts in the one block the buffer flushed
LAST_BAR = 900  # the bar's count when the log stops (no completion record)
CLEAR = " " * 50


def _loss(k: int) -> float:
    return round(0.9 + 1.5 / (1.0 + 0.02 * k), 4)


def _bar(n: int) -> str:
    return f"  {100 * n // TOTAL:2d}%|#         | {n}/{TOTAL} [00:{n % 60:02d}<1:02:11,  3.1{n % 10}it/s]"


def _dict(k: int) -> str:
    step = k * LOGGING_STEPS
    return "{'loss': %s, 'grad_norm': 0.%d, 'learning_rate': 0.0002, 'epoch': %s}" % (
        _loss(step),
        40 + k % 17,
        round(step / 4000, 2),  # two decimals: repeats from one logging step to the next
    )


def _bars(a: int, b: int) -> list[str]:
    """Bar renders a..b, cleared and drawn again at the same count at every logging step."""
    out: list[str] = []
    for n in range(a, b + 1):
        out.append(_bar(n))
        if n and n % LOGGING_STEPS == 0:
            out += [CLEAR, "", _bar(n)]
    return out


def _buffered_sft_log() -> list[str]:
    """959959-lpd/RAG-END train_log.txt @11c997f4b730e0b2b78af308767e98f85e3b738c (TRL SFTTrainer,
    output redirected): the bar's renders joined by ``\\r``, at each logging step the bar cleared to
    blanks and drawn again; the first stdout flush (a block of dicts, each on its own line) after a
    later render; the log ends mid-run without another flush."""
    flush_at = FLUSHED * LOGGING_STEPS + 5
    lines = ["Loading Base Model: some-org/some-8B", "Starting Training...", "\r".join(_bars(0, flush_at))]
    lines += [CLEAR] + [_dict(k) for k in range(1, FLUSHED + 1)]
    lines.append("\r".join(_bars(flush_at + 1, LAST_BAR)))
    return lines


def test_dicts_flushed_in_a_block_sit_at_the_bar_counts_drawn_again(tmp_path):
    run = _read(tmp_path, _buffered_sft_log(), "train_log.txt")
    assert run.format == "console/hf-trainer"
    assert run.roles["loss"] == "loss"
    last = FLUSHED * LOGGING_STEPS
    assert _series(run, "loss") == (FLUSHED, float(LOGGING_STEPS), float(last), _loss(LOGGING_STEPS), _loss(last))
    assert _series(run, "grad_norm")[:3] == (FLUSHED, float(LOGGING_STEPS), float(last))
    incomplete = [f for f in judge(run).findings if f.code == "TL080"]
    assert incomplete and incomplete[0].evidence["reached"] == last and incomplete[0].evidence["planned"] == TOTAL
    # one bar drawn twice for something else (a warning written through the bar) before the first
    # logging step: the counts drawn again are no longer the multiples of one spacing, so the
    # dicts keep their order as steps rather than sit one logging step off
    lines = _buffered_sft_log()
    lines[2] = lines[2].replace(_bar(7), "\r".join([_bar(7), CLEAR, _bar(7)]), 1)
    run = _read(tmp_path, lines, "train_log_2.txt")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[:3] == (FLUSHED, 1.0, float(FLUSHED))


LAUNCHES = (1, 1, 1, 10, 10, 10, 10, 10)  # episodes per launch: three short tries, then five full runs
EPISODES = 10


_TD_SHAPE = (0.8, 12.5, 21.0, 18.2, 30.4, 24.9, 11.7, 19.3, 27.6, 15.1)  # low at the first episode, then noisy


def _td_loss(session: int, episode: int) -> float:
    return round(_TD_SHAPE[episode - 1] + 1.3 * session, 4)


def _dqn_sessions_log() -> list[str]:
    """Ab-mahin/Multi-Agent-DQN-Coordinatio train_log.txt @0809373930657f27a67cc1411b5c294c51016225
    (a DQN script that appends to its log on every launch): per launch a banner with its start
    time, ``Episode i/N | Deliveries: d | Collisions: c | Loss: x | ε: e`` per episode, and a
    block of final results; the launches run 1 or 10 episodes (more relaunches than a run's
    count may fall back)."""
    rule = "=" * 60
    lines: list[str] = []
    for session, episodes in enumerate(LAUNCHES):
        lines += ["", rule, f"Training Session Started: 2026-01-05 10:{10 + session:02d}:07", rule, ""]
        for ep in range(1, episodes + 1):
            lines.append(
                f"Episode {ep}/{episodes} | Deliveries: {(ep * 37 + session) % 700} | Collisions: {ep % 2} "
                f"| Loss: {_td_loss(session, ep):.4f} | ε: 0.000"
            )
        lines += ["", rule, "FINAL RESULTS (Online DQN Learning)", rule, f"Total Deliveries: {3000 + session}"]
        lines += [f"Total Collisions: {session}", "Avg steps per delivery: 3.10", rule]
    return lines


def test_launches_appended_to_one_log_are_told_apart_by_their_episode_count(tmp_path):
    run = _read(tmp_path, _dqn_sessions_log(), "train_log.txt")
    assert run.format == "console/general"
    assert run.roles["loss"] == "Loss"
    # the short tries' lone first episodes give way to the next launch's first (one point at step 1)
    full = [i for i, n in enumerate(LAUNCHES) if n == EPISODES]
    ends = (len(full) * EPISODES, 1.0, float(EPISODES), _td_loss(full[0], 1), _td_loss(full[-1], EPISODES))
    assert _series(run, "Loss") == ends
    resumed = [f for f in judge(run).findings if f.code == "TL095"]
    assert resumed and resumed[0].evidence["segments"] == len(full)
