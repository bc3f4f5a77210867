import numpy as np
from _rulekit import decay, make_run, not_checked, one, silent


def test_tl020_recovered_spikes_are_a_note_with_steps():
    # issue 15: spikes the loss came back from at once cost nothing lasting
    loss = decay(200, noise=0.01)
    loss[[50, 120]] *= 3
    f = one("TL020", make_run(loss))
    assert f.severity.value == "NOTE" and "all recovered at once" in f.message
    assert f.evidence["spike_steps"] == [51.0, 121.0] and f.evidence["recovered"] == 2
    assert f.evidence["score"] > 6 and "51, 121" in f.message


def test_tl020_spike_the_loss_did_not_come_back_from_is_warn():
    loss = decay(200, noise=0.01)
    loss[120] *= 6
    loss[121:] *= 2.2  # the loss stays up after the spike
    f = one("TL020", make_run(loss))
    assert f.severity.value == "WARN" and f.evidence["recovered"] < f.evidence["spikes"]


def test_tl020_printed_rounding_is_not_a_spike():
    # a converged loss printed to 4 decimals: 0.0003 -> 0.0008 is five printed digits
    rng = np.random.default_rng(0)
    loss = np.round(np.r_[np.linspace(0.3, 0.0003, 100), 0.0003 + rng.integers(0, 2, 100) * 1e-4], 4)
    loss[[150, 170]] = 0.0008
    silent("TL020", make_run(loss))
    loss[[150, 170]] = 0.0030  # 27 printed digits above: a spike (recovered: a NOTE)
    assert one("TL020", make_run(loss)).severity.value == "NOTE"


def test_tl020_silent_on_noise_and_short_run():
    silent("TL020", make_run(decay(200, noise=0.05)))
    assert "needs at least 20" in not_checked("TL020", make_run(decay(10)))


def test_tl021_lone_spike_is_note():
    gn = np.abs(np.random.default_rng(0).normal(1.0, 0.05, 200))
    gn[30] = 20.0
    f = one("TL021", make_run(decay(200, noise=0.01), grad_norm=gn))
    assert f.severity.value == "NOTE" and f.evidence["spikes"] == 1 and f.step == 31
    assert "did not react" in f.message


def test_tl021_repeated_spikes_warn():
    gn = np.abs(np.random.default_rng(0).normal(1.0, 0.05, 200))
    gn[[30, 80, 130]] = 20.0
    f = one("TL021", make_run(decay(200, noise=0.01), grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["spikes"] == 3


def test_tl021_spike_with_loss_reaction_warns():
    gn = np.abs(np.random.default_rng(0).normal(1.0, 0.05, 200))
    gn[100] = 30.0
    loss = decay(200, noise=0.01)
    loss[101] *= 2.5
    f = one("TL021", make_run(loss, grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["loss_reactions"] == 1


def test_tl021_silent_and_not_checked():
    gn = np.abs(np.random.default_rng(0).normal(1.0, 0.1, 200))
    silent("TL021", make_run(decay(200), grad_norm=gn))
    assert "grad_norm" in not_checked("TL021", make_run(decay(200)))


def test_tl020_lone_small_outlier_is_note_repeated_warn():
    loss = decay(300, noise=0.01)
    loss[150] *= 1.7
    f = one("TL020", make_run(loss))
    assert f.severity.value == "NOTE" and f.evidence["spikes"] == 1 and 1.6 < f.evidence["ratio"] < 1.8
    loss[[50, 250]] *= 1.7
    f = one("TL020", make_run(loss))  # repeated, but all recovered: still a record only
    assert f.severity.value == "NOTE" and f.evidence["recovered"] == 3


def _converged(n: int = 1455, floor: float = 5e-5, seed: int = 2) -> np.ndarray:
    """A Lightning regression run's train_loss: 0.26 at the first step, falling fast, then
    settling near ``floor`` for most of the 1455 steps, with 5% batch-to-batch noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return (0.26 * np.exp(-t / 40) + floor) * rng.lognormal(0, 0.05, n)


def test_tl020_spikes_far_below_where_the_loss_started_are_a_note():
    loss = _converged()
    loss[[1063, 1209]] *= 5  # two spikes it came back from at once
    loss[1303] *= 5.4
    loss[1304:1340] *= 1.9  # one it did not: the loss stays up a while
    f = one("TL020", make_run(loss))
    assert f.severity.value == "NOTE" and f.evidence["recovered"] == 2 and f.evidence["spikes"] == 3
    assert f.evidence["ratio"] > 5 and f.evidence["undone"] < 0.01 and "undid" in f.message


def test_tl020_same_spikes_on_a_loss_that_has_not_fallen_far_warn():
    # the same shape settling at 0.05 (a fifth of its start): the worst spike takes back 0.25
    # of the 0.21 fall, far above the 1% threshold
    loss = _converged(floor=0.05)
    loss[[1063, 1209]] *= 5
    loss[1303] *= 5.4
    loss[1304:1340] *= 1.9
    f = one("TL020", make_run(loss))
    assert f.severity.value == "WARN" and f.evidence["undone"] > 0.5 and "undid" not in f.message


def _memorising(n: int = 3000, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """A multi-epoch fine-tune that memorises its data: loss 2.3 falling to about 0.06 by the
    middle of the run; grad norm about 4.6 with 5% noise, and 6 spikes of 15x in the second half
    that the loss does not follow."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    loss = (2.24 * np.exp(-t / 300) + 0.06) * rng.lognormal(0, 0.03, n)
    gn = 4.6 * rng.lognormal(0, 0.05, n)
    gn[[1880, 2000, 2200, 2470, 2560, 2860]] *= 15
    return loss, gn


def test_tl021_late_spikes_of_a_memorising_run_the_loss_ignored_are_a_note():
    loss, gn = _memorising()
    f = one("TL021", make_run(loss, grad_norm=gn))
    assert f.severity.value == "NOTE" and f.evidence["spikes"] == 6 and f.evidence["loss_reactions"] == 0
    assert f.evidence["memorised"] is True and "memorising its data" in f.message


def test_tl021_same_spikes_warn_early_or_when_the_loss_follows():
    loss, gn = _memorising()
    slow = np.linspace(2.3, 1.0, len(loss))  # the loss is still 0.6 of its start at the spikes
    f = one("TL021", make_run(slow, grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["memorised"] is False
    loss[2201:2204] *= 3  # the loss jumps after one spike: thrown off, not memorising
    f = one("TL021", make_run(loss, grad_norm=gn))
    assert f.severity.value == "WARN" and f.evidence["loss_reactions"] == 1
