"""Write the hand-made console samples in the exact format each framework prints.

The format strings are the ones the frameworks' own scripts use (PyTorch examples,
Detectron2's CommonMetricPrinter, ultralytics, nanoGPT, llm.c, fairseq); the numbers
are made up. Run by hand from this folder: ``python gen_samples.py`` (writes ``..``).
"""

from __future__ import annotations

import math
from pathlib import Path

OUT = Path(__file__).resolve().parents[1]


def write(name: str, text: str) -> None:
    (OUT / name).write_bytes(text.encode("utf-8"))


def decay(i: int, start: float, end: float, n: int) -> float:
    return end + (start - end) * math.exp(-3.0 * i / n) + 0.01 * math.sin(i)


def pytorch_mnist() -> str:
    out = []
    for epoch in (1, 2, 3):
        for b in range(0, 938, 94):
            loss = decay((epoch - 1) * 938 + b, 2.3, 0.05, 2814)
            out.append("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(
                epoch, b * 64, 60000, 100.0 * b / 938, loss))
        out.append("\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n".format(
            0.09 / epoch, 9700 + 50 * epoch, 10000, 97.0 + 0.5 * epoch))
    return "\n".join(out) + "\n"


def detectron2() -> str:
    out = ["[11/29 10:15:02 d2.engine.train_loop]: Starting training from iteration 0"]
    for it in range(19, 500, 20):
        total = decay(it, 2.2, 0.6, 500)
        out.append(f"[11/29 10:{15 + it // 100:02d}:{(it * 7) % 60:02d} d2.utils.events]:  eta: 0:0{(500 - it) // 120}:"
                   f"{(500 - it) % 60:02d}  iter: {it}  total_loss: {total:.4g}  loss_cls: {total * 0.4:.4g}  "
                   f"loss_box_reg: {total * 0.3:.4g}  loss_rpn_cls: {total * 0.2:.4g}  loss_rpn_loc: {total * 0.1:.4g}"
                   f"    time: 0.4430  last_time: 0.4412  data_time: 0.0123  last_data_time: 0.0100   "
                   f"lr: {0.02 * min(1.0, (it + 1) / 100):.6g}  max_mem: 2345M")
    out.append("[11/29 10:19:30 d2.engine.hooks]: Overall training speed: 498 iterations in 0:03:40 (0.4436 s / it)")
    out.append("[11/29 10:19:30 d2.engine.hooks]: Total training time: 0:03:48 (0:00:08 on hooks)")
    return "\n".join(out) + "\n"


def yolo() -> str:
    out = ["Ultralytics 8.3.40 🚀 Python-3.11.9 torch-2.5.1 CPU",
           "Starting training for 3 epochs..."]
    head = "\n      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"
    for e in (1, 2, 3):
        out.append(head)
        redraws = []
        for k in (1, 4, 8):
            box, cls, dfl = 1.3 - 0.1 * e - 0.01 * k, 1.6 - 0.15 * e, 1.25 - 0.05 * e
            bar = "█" * (10 * k // 8) + " " * (10 - 10 * k // 8)
            redraws.append(f"{'':>8}{e}/3{'':>9}0G{box:>11.4g}{cls:>11.4g}{dfl:>11.4g}{217:>11}{640:>11}: "
                           f"{100 * k // 8:>3}%|{bar}| {k}/8 [00:0{k}<00:0{8 - k},  1.47it/s]")
        out.append("\r".join(redraws))
        out.append(f"{'Class':>22}{'Images':>11}{'Instances':>11}{'Box(P':>11}{'R':>11}{'mAP50':>11}"
                   f"{'mAP50-95):':>11} 100%|██████████| 4/4 [00:01<00:00,  2.71it/s]")
        out.append(f"{'all':>22}{128:>11}{929:>11}{0.5 + 0.05 * e:>11.3g}{0.4 + 0.05 * e:>11.3g}"
                   f"{0.45 + 0.05 * e:>11.3g}{0.3 + 0.05 * e:>11.3g}")
    out.append("\n3 epochs completed in 0.010 hours.")
    return "\n".join(out) + "\n"


def nanogpt() -> str:
    out = ["tokens per iteration will be: 491,520", "number of parameters: 123.65M",
           "compiling the model... (takes a ~minute)"]
    for it in range(0, 301, 10):
        if it % 100 == 0:
            out.append(f"step {it}: train loss {decay(it, 10.98, 3.2, 300):.4f}, val loss {decay(it, 10.99, 3.3, 300):.4f}")
            if it:
                out.append("saving checkpoint to out")
        mfu = -100.0 if it < 50 else 31.5
        out.append(f"iter {it}: loss {decay(it, 10.98, 3.2, 300) + 0.05:.4f}, time {345.12 + it % 7:.2f}ms, mfu {mfu:.2f}%")
    return "\n".join(out) + "\n"


def llmc() -> str:
    out = ["| Max sequence length T | 1024 |", "num_parameters: 124475904 => bytes: 248951808",
           "val loss 11.008427"]
    for s in range(1, 41):
        loss = decay(s, 11.01, 6.5, 40)
        out.append("step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s"
                   % (s, 74, loss, 0.0, 15.3 / s + 0.8, 0.0, 6e-4 * min(1.0, s / 10), 452.97 + s % 5,
                      41.2, 1157741 + s))
        if s % 20 == 0:
            out.append("val loss %f" % (loss + 0.1))
    return "\n".join(out) + "\n"


def fairseq_hydra() -> str:
    p = "2021-03-01 10:{:02d}:{:02d} | INFO | "
    out = [p.format(0, 1) + "fairseq_cli.train | training on 1 devices (GPUs/TPUs)"]
    upd = 0
    for epoch in (1, 2):
        out.append(p.format(epoch, 2) + f"fairseq.trainer | begin training epoch {epoch}")
        for k in range(100, 501, 100):
            upd += 100
            loss = decay(upd, 12.8, 6.0, 1000)
            out.append(p.format(epoch * 10 + k // 100, 40) + f"train_inner | epoch {epoch:03d}:    {k} / 500 "
                       f"loss={loss:.3f}, nll_loss={loss - 0.2:.3f}, ppl={2 ** (loss - 0.2):.2f}, wps=21045.4, ups=1.02, "
                       f"wpb=20644.8, bsz=649.9, num_updates={upd}, lr={1.25975e-05 * upd / 100:.6g}, gnorm=2.591, "
                       f"train_wall=97, gb_free=10.1, wall={upd}")
        out.append(p.format(epoch * 10 + 6, 30) + f"valid | epoch {epoch:03d} | valid on 'valid' subset | loss "
                   f"{9.5 - epoch:.3f} | nll_loss {9.0 - epoch:.3f} | ppl 481.42 | wps 51234.5 | wpb 2025.5 | bsz 63.4 | "
                   f"num_updates {upd} | best_loss {9.5 - epoch:.3f}")
        out.append(p.format(epoch * 10 + 6, 31) + f"train | epoch {epoch:03d} | loss {11.2 - epoch:.3f} | nll_loss "
                   f"{10.9 - epoch:.3f} | ppl 1949.89 | wps 20998 | ups 1.02 | wpb 20587.3 | bsz 648.4 | num_updates {upd} | "
                   f"lr 0.000137836 | gnorm 1.677 | train_wall 1064 | gb_free 10.1 | wall 1085")
    out.append(p.format(30, 0) + "fairseq_cli.train | done training in 3298.8 seconds")
    return "\n".join(out) + "\n"


def fairseq_legacy() -> str:
    out = ["| model transformer_iwslt_de_en, criterion LabelSmoothedCrossEntropyCriterion"]
    for epoch in range(1, 6):
        upd = epoch * 1000
        out.append(f"| epoch {epoch:03d} | loss {decay(epoch, 9.8, 4.1, 5):.3f} | nll_loss 9.574 | ppl 762.41 | wps 12345 "
                   f"| ups 3 | wpb 4096.000 | bsz 128.000 | num_updates {upd} | lr 0.0005 | gnorm 1.234 | clip 0.000 "
                   f"| oom 0.000 | wall {333 * epoch} | train_wall {320 * epoch}")
        out.append(f"| epoch {epoch:03d} | valid on 'valid' subset | loss {decay(epoch, 9.1, 4.5, 5):.3f} | nll_loss 8.9 "
                   f"| ppl 477.7 | num_updates {upd}")
        out.append(f"| saved checkpoint checkpoints/checkpoint{epoch}.pt (epoch {epoch} @ {upd} updates) "
                   f"(writing took 1.2 seconds)")
    out.append("| done training in 1665.0 seconds")
    return "\n".join(out) + "\n"


def megatron() -> str:
    """Megatron-LM training_log() and evaluate_and_print_results() lines."""
    out = ["> building GPT2BPETokenizer tokenizer ..."]
    for it in range(10, 201, 10):
        out.append(f" iteration {it:>8}/{500000:>8} | consumed samples: {it * 512:>12} | elapsed time per iteration "
                   f"(ms): {1234.5 + it % 7:.1f} | learning rate: {3e-4 * min(1, it / 100):.6E} | global batch size: "
                   f"{512:>5} | lm loss: {decay(it, 10.9, 5.2, 200):.6E} | loss scale: 65536.0 | grad norm: "
                   f"{1.5 - it / 400:.3f} | number of skipped iterations: {0:>3} | number of nan iterations: {0:>3} |")
        if it % 100 == 0:
            loss = decay(it, 10.9, 5.2, 200) + 0.1
            out.append("-" * 100)
            out.append(f" validation loss at iteration {it} | lm loss value: {loss:.6E} | lm loss PPL: "
                       f"{math.exp(loss):.6E} | ")
            out.append("-" * 100)
    return "\n".join(out) + "\n"


def generic_epoch() -> str:
    out = ["Using device: cuda", "Loaded 50000 training images"]
    for e in range(1, 13):
        out.append(f"Epoch {e}/20 - train_loss: {decay(e, 1.9, 0.4, 20):.4f} - val_loss: {decay(e, 1.8, 0.6, 20):.4f}"
                   f" - acc: {0.3 + 0.04 * e:.4f}")
    return "\n".join(out) + "\n"


def generic_step() -> str:
    out = ["2026-01-05 02:00:00,001 INFO starting run lr=3e-4 batch=32"]
    for s in range(50, 1001, 50):
        out.append(f"2026-01-05 02:{s // 50:02d}:00,123 INFO step {s} loss={decay(s, 4.0, 1.2, 1000):.4f} "
                   f"lr={3e-4:.1e} grad_norm={1.5 - s / 2000:.3f}")
    out.append("2026-01-05 02:21:00,000 INFO Training completed. Saved model to out/final")
    return "\n".join(out) + "\n"


def coqui() -> str:
    """Coqui TTS trainer_0_log.txt: an eval before training, 3 epochs of 40 steps, best model at 80."""
    b, u, z = "\x1b[1m", "\x1b[4m", "\x1b[0m"
    out = [" > Training Environment:", " | > Backend: Torch", " | > Mixed precision: False", " | > Num. of GPUs: 1",
           " > Start Tensorboard: tensorboard --logdir=/runs/tiny-run", "", " > Model has 1234567 parameters", ""]
    evals = [4.88, 2.75, 2.68, 2.71]
    for epoch in range(4):
        out += [f"{u}{b} > EPOCH: {epoch}/4{z}", " --> /runs/tiny-run", ""]
        if epoch:
            out += [f"{b} > TRAINING (2026-02-11 01:{epoch * 10:02d}:00) {z}", ""]
            for k in range(0, 40, 10):
                g = (epoch - 1) * 40 + k
                loss = decay(g, 0.06, 0.03, 120)
                out += [f"{b}   --> TIME: 2026-02-11 01:{epoch * 10 + k // 10:02d}:{k:02d} -- STEP: {k}/40 -- "
                        f"GLOBAL_STEP: {g}{z}",
                        f"     | > loss_mel_ce: {loss * 80:.15g}  ({loss * 81:.15g})",
                        f"     | > loss: {loss:.15g}  ({loss * 1.01:.15g})",
                        f"     | > grad_norm: {1.5 - g / 100:.4g}  ({1.5:.4g})",
                        "     | > current_lr: 5e-06 ",
                        f"     | > step_time: {0.05 + k / 1000:.4g}  (0.0513328075408)",
                        "     | > loader_time: 0.0051  (0.00445958614349)", "", ""]
                if g in (50, 100):
                    out += [f" > CHECKPOINT : /runs/tiny-run/checkpoint_{g}.pth", ""]
        prev = evals[epoch - 1] if epoch else None
        colour, delta = ("\x1b[92m", f"({evals[epoch] - prev:+.15g})") if prev else ("", "(+0)")
        out += [f"{b} > EVALUATION {z}", "", "", f"  {b}--> EVAL PERFORMANCE{z}",
                f"     | > avg_loader_time:{colour} 0.0117105728104 {z}{delta}",
                f"     | > avg_loss_mel_ce:{colour} {evals[epoch] - 0.02:.15g} {z}{delta}",
                f"     | > avg_loss:{colour} {evals[epoch]:.15g} {z}{delta}", ""]
        if epoch and evals[epoch] == min(evals[1:epoch + 1]):
            out += [f" > BEST MODEL : /runs/tiny-run/best_model_{epoch * 40}.pth", ""]
    return "\n".join(out) + "\n"


def main() -> None:
    for name, fn in [("pytorch_mnist.log", pytorch_mnist), ("detectron2.log", detectron2), ("yolo.log", yolo),
                     ("nanogpt.log", nanogpt), ("llmc.log", llmc), ("fairseq_hydra.log", fairseq_hydra),
                     ("fairseq_legacy.log", fairseq_legacy), ("generic_epoch.txt", generic_epoch),
                     ("generic_step.log", generic_step), ("megatron.log", megatron)]:
        write(name, fn())
    (OUT / "coqui").mkdir(exist_ok=True)
    write("coqui/trainer_0_log.txt", coqui())


if __name__ == "__main__":
    main()
