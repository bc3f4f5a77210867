"""The ``loss_log.txt`` of pytorch-CycleGAN-and-pix2pix and the many models built on it
(CycleGAN, pix2pix, CUT, DeblurGAN, inpainting and 3D variants).

``util/visualizer.py`` (``Visualizer.print_current_losses``) appends a banner
``================ Training Loss (<date>) ================`` at every launch, then one line
per print: ``(epoch: 3, iters: 400, time: 0.129, data: 0.002) D_A: 0.212 G_A: 0.593 ...``
(before 2018 without ``data``). Each name is one of the model's ``loss_names``, the value of
its attribute ``loss_<name>`` (``BaseModel.get_current_losses``). The models optimise two
networks: the discriminator's terms (``D_A``, ``D_real``, ``D_real+fake``, ``img_d``: a ``D``
word) and the generator's (the rest), whose sum is the model's ``loss_G`` (``backward_G`` in
``models/cycle_gan_model.py`` and ``pix2pix_model.py``). Each line gives ``loss_G``, the loss
judged, and ``loss_D`` beside the terms as printed. ``iters`` counts the images of the current
epoch: the step is the count over the epochs seen, and a launch that starts again at epoch 1
starts the steps again (a new run appended to the file). A model may print its objective as a
term of its own beside the parts it adds up (M3D-VTON's ``models/MTM_model.py``: ``loss_mtm``
is ``loss_warp + loss_fdepth + loss_bdepth + loss_segmt``, printed as ``mtm: 0.145 fdepth:
0.009 ...``): where one generator term is the sum of the others on every line, it is ``loss_G``.

The Keras GAN tutorials (CycleGAN, pix2pix, DCGAN) and their many copies print one line per
step: ``>N, dA[0.52,0.77] dB[0.94,0.86] g[18.52,19.39]`` (each network's losses in brackets),
``>N, d1[0.41] d2[0.38] g[12.7]``, or ``>E, B/NB, d1=0.69, d2=0.70 g=0.68``. A name starting
with ``d`` is a discriminator's, with ``g`` a generator's (``g[a,b]``: the two generators'
composite losses); ``loss_G`` sums the generator values, ``loss_D`` the discriminator's.
"""

from __future__ import annotations

from ...role_structure import discriminator_part, parse
from .text import NUM, Capture, Line, lazy_regex

_LINE = lazy_regex(r"^\s*\(epoch: (\d+), iters: (\d+), time: %s(?:, data: %s)?\)\s+(.*)$" % (NUM, NUM))
_PAIR = lazy_regex(r"(?:^|\s)([A-Za-z][\w+\-]*): (%s)(?=\s|$)" % NUM)
# ComboGAN (AAnoosheh/ComboGAN, one generator and discriminator per domain) prints each loss as
# the list of its domains' values: "D: 0.111, 0.105, 0.111, 0.130 | G: 0.146, .. | Cyc: 0.092, .. |"
_LISTED = lazy_regex(r"(?:^|\s)([A-Za-z][\w+\-]*): ((?:%s\s*,\s*)+%s)\s*(?=\||$)" % (NUM, NUM))
_BANNER = "Training Loss ("
_KERAS_GAN = lazy_regex(
    r"^\s*\w*>\s*(\d+)\s*,\s*(?:(\d+)\s*/\s*(\d+)\s*,\s*)?((?:[dDgG]\w{0,3}(?:\[[^\]]*\]|=%s)[\s,]*){2,})$" % NUM
)
_KERAS_TERM = lazy_regex(r"([dDgG]\w{0,3})(?:\[([^\]]*)\]|=(%s))" % NUM)


def loss_log(lines: list[Line]) -> Capture | None:
    """The per-print losses of a pix2pix-family ``loss_log.txt`` (or its console copy)."""
    cap = Capture("pix2pix-loss-log")
    epoch, per_epoch, most = 0, 0, 0  # the current epoch, the images of an epoch, the most in this one
    launches = 0
    rows: list[tuple[float, dict[str, float], float, int]] = []
    for line in lines:
        text = line.final
        if _BANNER in text and text.lstrip().startswith("="):
            launches += 1
            continue
        m = _LINE.match(text)
        if m is None:
            continue
        e, i = int(m[1]), int(m[2])
        if e != epoch:
            per_epoch, most, epoch = max(per_epoch, most), 0, e
        most = max(most, i)
        terms = {name: float(v) for name, v in _PAIR.findall(m[3])} or _per_domain(m[3])
        if not terms:
            continue
        rows.append((float((e - 1) * per_epoch + i), terms, float(e), line.no))
    if len(rows) < 2:
        return None
    total = _total_term([terms for _, terms, _, _ in rows])
    for step, terms, in_epoch, no in rows:
        cap.add_all(step, _with_totals(terms, total))
        cap.add("epoch", step, in_epoch)
        cap.lines.append(no)
    cap.meta["launches"] = launches or None
    return cap


def _per_domain(text: str) -> dict[str, float]:
    """ComboGAN's lists of per-domain values as terms of their own: ``D: 0.1, 0.2`` is ``D_1``, ``D_2``."""
    out: dict[str, float] = {}
    for name, listed in _LISTED.findall(text):
        out.update({f"{name}_{k + 1}": float(v) for k, v in enumerate(listed.split(","))})
    return out


def _total_term(rows: list[dict[str, float]]) -> str | None:
    """The generator term that is the sum of the other generator terms on every line (to the
    printed 3 decimals, each rounded by up to 0.0005), where there are two others or more."""
    first = [n for n in rows[0] if not _is_discriminator(n)]
    if len(first) < 3:
        return None
    for name in first:
        if all(name in r and _sums_the_rest(r, name) for r in rows):
            return name
    return None


def _sums_the_rest(terms: dict[str, float], name: str) -> bool:
    rest = [v for n, v in terms.items() if n != name and not _is_discriminator(n)]
    return abs(terms[name] - sum(rest)) <= 0.0005 * (len(rest) + 1) + 1e-9


def _with_totals(terms: dict[str, float], total: str | None = None) -> dict[str, float]:
    """The terms as printed, with the generator's sum (``loss_G``: the ``total`` term where the
    model prints one) and the discriminator's (``loss_D``)."""
    disc = {n for n in terms if _is_discriminator(n)}
    out = dict(terms)
    if total is not None and total in terms:
        out["loss_G"] = terms[total]
    elif len(disc) < len(terms):
        out["loss_G"] = sum(v for n, v in terms.items() if n not in disc)
    if disc:
        out["loss_D"] = sum(terms[n] for n in disc)
    return out


def _is_discriminator(name: str) -> bool:
    return discriminator_part(parse("loss_" + name).part)


def keras_gan(lines: list[Line]) -> Capture | None:
    """The per-step losses of a Keras GAN tutorial's print (``>N, dA[..] dB[..] g[..]``)."""
    cap = Capture("keras-gan")
    for line in lines:
        m = _KERAS_GAN.match(line.final)
        if m is None:
            continue
        values: dict[str, float] = {}
        for name, listed, one in _KERAS_TERM.findall(m[4]):
            nums = [float(v) for v in listed.split(",")] if listed else [float(one)]
            values.update({name if len(nums) == 1 else f"{name}_{k + 1}": v for k, v in enumerate(nums)})
        gen = [v for n, v in values.items() if n[0] in "gG"]
        if not gen or len(gen) == len(values):
            continue
        values["loss_G"], values["loss_D"] = sum(gen), sum(v for n, v in values.items() if n[0] in "dD")
        step = float(m[1]) if m[2] is None else (float(m[1]) - 1) * float(m[3]) + float(m[2])
        cap.add_all(step, values)
        cap.lines.append(line.no)
    return cap if len(cap.lines) >= 2 else None


RECOGNISERS = ((loss_log, "(epoch: "), (keras_gan, ">"))
