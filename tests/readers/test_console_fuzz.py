"""Whatever the bytes, the console and Coqui readers return a Run or raise ReadError: never a traceback."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.options import ReadOptions
from trainlint.readers import ReadError
from trainlint.readers.console.reader import ConsoleReader
from trainlint.readers.coqui import CoquiReader

FRAGMENTS = [
    "Epoch 3/50",
    "Epoch 3: 100%|##########| 75/75 [00:01<00:00, loss=0.42, v_num=1, val_loss=0.51]",
    "5/5 ━━━━━━━━━━━━━━━━━━━━ 0s 4ms/step - loss: nan - val_loss: 0.0000e+00",
    "{'loss': '0.5', 'epoch': '1.0'}",
    " iteration 10/ 100 | lm loss: 1.0E+00 | grad norm: x |",
    " 50%|#####     | 5/10 [00:01<00:01]",
    "iter 10: loss 2.3, time 12.0ms, mfu 1.0%",
    "step 5/10 | loss 1e9 | lr 0",
    "   --> TIME: 2026-02-11 01:08:34 -- STEP: 0/40 -- GLOBAL_STEP: 0",
    "     | > loss: inf  (inf)",
    " > EPOCH: 0/4",
    " > EVALUATION ",
    "     | > avg_loss: 1.0 (+0)",
    " > BEST MODEL : /x/best_model_9.pth",
    " > CHECKPOINT : /x/checkpoint_.pth",
    "Traceback (most recent call last):",
    '  File "x.py", line 1',
    "RuntimeError: CUDA out of memory.",
    "Killed",
    "\x1b[1m",
    "\x1b[0m",
    "\r",
    "\b",
    "\n",
    "\r\n",
    "\t",
    " ",
    "epoch 1 loss=",
    "step  loss 1.0",
    "| epoch 001 | loss 9.8 |",
    "      Epoch    GPU_mem   box_loss",
    "        1/3         0G       1.19 640: 100%|#| 8/8 [00:01<00:00]",
    "all 128 929 0.5 0.4 0.3 0.2",
    "\ufffd",
    "\x00",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40))
def test_arbitrary_console_text_never_raises_anything_but_read_error(tmp_path_factory, parts):
    path = Path(tmp_path_factory.mktemp("fuzz")) / "train.log"
    path.write_text("".join(parts), encoding="utf-8", errors="surrogatepass")
    for reader in (ConsoleReader(), CoquiReader()):
        reader.sniff(path, path.read_bytes()[:8192])
        try:
            if isinstance(reader, ConsoleReader):
                run = reader.read(path, ReadOptions(patterns=(r"loss[:=]? (?P<loss>\S+)",)))
            else:
                run = reader.read(path)
        except ReadError:
            continue
        for s in run.series.values():
            assert s.steps.shape == s.values.shape and s.steps.dtype.kind == "f"
        for ev in run.events:
            assert ev["type"] == "crash" and isinstance(ev["line"], int)


def test_long_runs_of_digits_spaces_and_pairs_read_in_linear_time(tmp_path):
    """Regexes are written so no input makes them backtrack quadratically (300k-char lines here).
    The bound is on CPU time, the work done: wall time varies with what else the machine runs."""
    import time

    bodies = [
        "step 1 loss " + "1" * 300_000,
        "Epoch 1: " + "1" * 300_000 + "%|",
        "epoch 1 " + " " * 300_000 + "x",
        "iter: 1 " + "a: 1 " * 60_000,
        "done training in " + "1" * 300_000,
        "x" + "1" * 300_000 + " epochs",
        "1%|[<" * 60_000,  # tqdm bars' openings with no bar closed: no print glued after one
        "1%||1/1[" * 40_000,  # bars drawn to their bracket, none closed: no render whole, the last one cut
        "]" + "1%||1/1[" * 40_000,  # the same after a closing bracket
    ]
    for i, body in enumerate(bodies):
        path = tmp_path / f"long{i}.log"
        path.write_text(body + "\n")
        start = time.process_time()
        for reader in (ConsoleReader(), CoquiReader()):
            reader.sniff(path, path.read_bytes()[:8192])
            try:
                reader.read(path)
            except ReadError:
                pass
        assert time.process_time() - start < 3.0, body[:20]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from([*FRAGMENTS, "Traceback", "CUDA out of memory", "9 step", "\n", "ste", "p 1"]) | st.text()
    ).map("\n".join),
    st.sampled_from(["step", "Step", "loss", "Traceback", "memory", "p\n9", "ep 3", "3/5", "", "é", "oss: n"])
    | st.text(),
)
def test_needles_answers_exactly_as_in(text, needle):
    from trainlint.readers.console.text import Needles

    assert (needle in Needles(text)) == (needle in text)
