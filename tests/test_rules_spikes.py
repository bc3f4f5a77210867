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
