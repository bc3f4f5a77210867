"""The console format zoo (issue 29 §2): one fixture per framework log format, each line built
from the format string in the framework's own source (repository, commit, file and line
recorded with it; the format facts only, no code), each asserting the series read: names,
steps, first and last values."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers import ReadError


def _loss(e, i):
    return 6.9 - 0.01 * (e * 10 + i)


def timm_train():
    """huggingface/pytorch-image-models@aa4b5850c1543fa488abf260f18390eda46cf85d train.py:1417-1423:
    'Train: {epoch} [{update_idx:>4d}/{updates_per_epoch} ({pct:>3.0f}%)]  Loss: {now:#.3g} ({avg:#.3g})
    Time: {t:.3f}s, {rate:>7.2f}/s  ({t_avg:.3f}s, {rate_avg:>7.2f}/s)  LR: {lr:.3e}  Data: {d:.3f} ({d_avg:.3f})',
    through the logging format '%(asctime)s %(levelname)s %(message)s' would not change the body."""
    out = []
    for e in range(3):
        for k, idx in enumerate(range(0, 1000, 100)):
            out.append(
                f"Train: {e} [{idx:>4d}/1000 ({100.0 * (idx + 1) / 1000:>3.0f}%)]  Loss: {_loss(e, k):#.3g} (6.90)  "
                f"Time: 0.412s,  621.36/s  (0.433s,  591.22/s)  LR: {1e-3:.3e}  Data: 0.012 (0.015)"
            )
    return out


def test_timm_train_lines(tmp_path):
    run = _read(tmp_path, timm_train())
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (30, 0.0, 2900.0, 6.9, pytest.approx(6.61))
    assert run.series["LR"].values[0] == 1e-3


def swin_lines():
    """microsoft/Swin-Transformer@f82860bfb5225915aca09c3227159ee9e1df874d main.py:222-229 (train:
    'Train: [{epoch}/{EPOCHS}][{idx}/{num_steps}]\\teta {eta} lr {lr:.6f}\\t wd {wd:.4f}\\ttime {v:.4f} ({a:.4f})\\t
    loss {v:.4f} ({a:.4f})\\tgrad_norm {v:.4f} ({a:.4f})\\tloss_scale {v:.4f} ({a:.4f})\\tmem {m:.0f}MB')
    and main.py:271-278 (validation: 'Test: [{idx}/{n}]\\tTime ...\\tLoss {v:.4f} ({a:.4f})\\tAcc@1 ...' and
    ' * Acc@1 {a:.3f} Acc@5 {a:.3f}'); the logger's format (utils/logger.py) puts
    '[%(asctime)s %(name)s] (%(filename)s %(lineno)d): %(levelname)s ' in front, coloured."""
    head = "\x1b[32m[2023-03-01 10:00:00 swin_tiny_patch4_window7_224]\x1b[0m\x1b[33m(main.py 222)\x1b[0m: INFO "
    out = []
    for e in range(3):
        for k, idx in enumerate(range(0, 500, 50)):
            out.append(
                head + f"Train: [{e}/300][{idx}/500]\teta 0:05:00 lr {0.001:.6f}\t wd {0.05:.4f}\t"
                f"time 0.4120 (0.4331)\tloss {_loss(e, k):.4f} (6.9000)\tgrad_norm 2.1000 (2.2000)\t"
                "loss_scale 65536.0000 (65536.0000)\tmem 8123MB"
            )
        for idx in (0, 10):
            out.append(
                head
                + f"Test: [{idx}/20]\tTime 0.210 (0.220)\tLoss {5.0 - e:.4f} (5.0000)\tAcc@1 1.000 (1.000)\tAcc@5 5.000 (5.000)\tMem 8123MB"
            )
        out.append(head + f" * Acc@1 {1.0 + e:.3f} Acc@5 {5.0 + e:.3f}")
    return out


def test_swin_train_and_test_lines(tmp_path):
    run = _read(tmp_path, swin_lines(), "output.log")
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "Test_Loss"
    assert _series(run, "loss") == (30, 0.0, 1450.0, 6.9, pytest.approx(6.61))
    assert _series(run, "Test_Loss") == (3, 450.0, 1450.0, 5.0, 3.0)
    assert run.series["grad_norm"].values[-1] == 2.1


def imagenet_lines():
    """pytorch/examples@77f55b912142e11fcfdf5b530231fb9c52f181e8 imagenet/main.py:315-321 (AverageMeter
    'Time' ':6.3f', 'Data' ':6.3f', 'Loss' ':.4e', 'Acc@1' ':6.2f', 'Acc@5' ':6.2f'; ProgressMeter prefix
    'Epoch: [{}]'), main.py:472 ('{name} {val<fmt>} ({avg<fmt>})'), joined by '\\t' after '[{i}/{n}]'
    with the count padded to the width of n."""
    out = []
    for e in range(2):
        for k, i in enumerate(range(0, 5005, 500)):
            out.append(
                f"Epoch: [{e}][{i:>4d}/5005]\tTime {0.412:6.3f} ({0.433:6.3f})\tData {0.012:6.3f} ({0.015:6.3f})\t"
                f"Loss {_loss(e, k):.4e} ({6.9:.4e})\tAcc@1 {0.5:6.2f} ({0.4:6.2f})\tAcc@5 {2.5:6.2f} ({2.1:6.2f})"
            )
        out.append(f" *   Acc@1 {10.0 + e:.3f} Acc@5 {30.0 + e:.3f}")
    return out


def test_pytorch_examples_imagenet(tmp_path):
    run = _read(tmp_path, imagenet_lines())
    assert _series(run, "loss") == (22, 0.0, 10005.0, 6.9, pytest.approx(6.9 - 0.2))
    assert run.series["acc1"].values[0] == 0.5


def olmo_lines():
    """allenai/OLMo@59a53e3f68e546330ca5a99ec626e58f9ab96494 olmo/train.py:964-990 (log_metrics_to_console:
    the prefix, then one '    {name}={value}' line per metric, values by size: .4f below 1, .3f below 10,
    .2f below 100, .1f below 1000, '{:,d}' above) and train.py:1241 (prefix '[step={step}/{max},epoch={e}]');
    metric names from train.py:899 ('train/CrossEntropyLoss')."""
    out = []
    for s in range(1, 21):
        out += [
            f"2024-02-01 00:00:{s:02d}.000\tnode0:0\tolmo.train:1240\tINFO\t[step={s}/739328,epoch=0]",
            f"    train/CrossEntropyLoss={11.33 - 0.1 * s:.2f}",
            f"    train/Perplexity={int(83000 - 100 * s):,d}",
            "    optim/total_grad_norm=1.503",
            "    throughput/total_tokens=4,194,304",
        ]
    return out


def test_olmo_console_blocks(tmp_path):
    run = _read(tmp_path, olmo_lines())
    assert run.roles["loss"] == "train/CrossEntropyLoss"
    assert _series(run, "train/CrossEntropyLoss") == (20, 1.0, 20.0, 11.23, pytest.approx(9.33))
    assert run.series["optim/total_grad_norm"].values[0] == 1.503


def test_nanogpt(tmp_path):
    """karpathy/nanoGPT@3adf61e154c3fe3fca428ad6bc3818b27a3b8291 train.py:327
    ('iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%') and train.py:265
    ('step {iter_num}: train loss {:.4f}, val loss {:.4f}')."""
    lines = []
    for it in range(0, 300, 10):
        if it % 100 == 0:
            lines.append(f"step {it}: train loss {4.2 - it / 100:.4f}, val loss {4.3 - it / 100:.4f}")
        lines.append(f"iter {it}: loss {4.2 - it / 100:.4f}, time {412.5:.2f}ms, mfu {31.2:.2f}%")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (30, 0.0, 290.0, 4.2, pytest.approx(1.3))
    assert _series(run, "val_loss") == (3, 0.0, 200.0, 4.3, pytest.approx(2.3))


def test_llmc(tmp_path):
    """karpathy/llm.c@f1e2ace651495b74ae22d45d1723443fd00ecd3a train_gpt2.cu:1872
    ('step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s')
    and train_gpt2.cu:1728 ('val loss %f')."""
    lines = []
    for s in range(1, 41):
        lines.append(
            f"step {s:4d}/40 | loss {11.0 - 0.1 * s:7.6f} (+0.01z)| norm {1.2:6.4f} (-0.30z)| lr {6e-4:.2e} | "
            f"{95.2:.2f} ms | {40.1:.1f}% bf16 MFU | {172000:.0f} tok/s"
        )
        if s % 20 == 0:
            lines.append(f"val loss {11.0 - 0.1 * s:f}")
    run = _read(tmp_path, lines)
    assert _series(run, "loss") == (40, 1.0, 40.0, 10.9, pytest.approx(7.0))
    assert _series(run, "val_loss") == (2, 20.0, 40.0, 9.0, 7.0)
    assert run.series["grad_norm"].values[0] == 1.2


def test_build_nanogpt_log_file(tmp_path):
    """build-nanogpt's log file, as AGNDM/build-nanogpt@76892e505c26317c5f3ad8961c7d9a07127c0f84
    train_gpt2.py writes it (a fork of karpathy/build-nanogpt): line 399 f"{step} val {val:.4f}",
    line 444 f"{step} hella {acc_norm:.4f}", line 518 f"{step} train {loss:.6f}". The stream's name
    is the metric: "train" is the loss, "val" the eval loss (no name says loss)."""
    lines = []
    for s in range(60):
        if s % 25 == 0:
            lines += [f"{s} val {10.9 - 0.05 * s:.4f}", f"{s} hella {0.24 + 0.001 * s:.4f}"]
        lines.append(f"{s} train {10.95 - 0.05 * s:.6f}")
    run = _read(tmp_path, lines)
    assert run.format == "console/build-nanogpt"
    assert _series(run, "train") == (60, 0.0, 59.0, 10.95, pytest.approx(8.0))
    assert _series(run, "val") == (3, 0.0, 50.0, 10.9, pytest.approx(8.4))
    assert run.series["hella"].values[-1] == pytest.approx(0.29)
    assert (run.roles["loss"], run.roles["eval_loss"]) == ("train", "val")


def test_detectron2(tmp_path):
    """facebookresearch/detectron2@02b5c4e295e990042a714712c21dc79b731e8833 detectron2/utils/events.py:277-316
    (CommonMetricPrinter: ' {eta}iter: {iter}  {losses}  {non_losses}  {avg_time}{last_time}{avg_data_time}
    {last_data_time} lr: {lr}  {memory}', losses as '{}: {:.4g}', 'time: {:.4f}  ', 'max_mem: {:.0f}M'),
    through detectron2's logger prefix '[%m/%d %H:%M:%S d2.utils.events]: '."""
    lines = [
        f"[02/04 10:{i // 60:02d}:{i % 60:02d} d2.utils.events]:  eta: 0:10:00  iter: {i}  total_loss: {2.1 - 0.001 * i:.4g}  "
        f"loss_cls: {0.7:.4g}  loss_box_reg: {0.5:.4g}    time: 0.4120  last_time: 0.4100  data_time: 0.0100  "
        f"last_data_time: 0.0090   lr: {0.00039962:.5g}  max_mem: 2547M"
        for i in range(19, 1000, 20)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/detectron2" and run.roles["loss"] == "total_loss"
    assert _series(run, "total_loss") == (50, 19.0, 999.0, 2.081, pytest.approx(1.101))


def test_mmengine(tmp_path):
    """open-mmlab/mmengine@254342938d9bde1775c39ea7d5181c5d294026c4 mmengine/runner/log_processor.py:193
    ('Epoch({mode}){cur_epoch_str}[{cur_iter_str}/{dataloader_len}]  '), :159 ('{key}: {value:.{num_digits}e}'
    for the learning rates), :215-229 (eta, time, data_time, memory), :245 ('{name}: {val}' for the rest)."""
    lines = [
        f"12/04 10:00:00 - mmengine - INFO - Epoch(train)  [{e}][{i:>3}/270]  lr: {2e-2:.4e}  eta: 1:00:00  "
        f"time: 0.4120  data_time: 0.0100  memory: 3000  loss: {1.5 - 0.01 * (e * 3 + i // 100):.4f}  loss_cls: 0.5000"
        for e in range(1, 6)
        for i in (100, 200, 270)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (15, 100.0, 1350.0, 1.46, pytest.approx(1.33))


def test_yolov5(tmp_path):
    """ultralytics/yolov5@5081342f04fb287fc2e5f2b5a4e06752b7937b1c train.py:372 (the header:
    '%11s' * 7 of Epoch GPU_mem box_loss obj_loss cls_loss Instances Size), train.py:427-430 (the bar's
    description: '%11s' * 2 + '%11.4g' * 5), val.py:336-337 (the 'all' row: '%22s' + '%11i' * 2 + '%11.3g' * 4)."""
    head = ("%11s" * 7) % ("Epoch", "GPU_mem", "box_loss", "obj_loss", "cls_loss", "Instances", "Size")
    lines = []
    for e in range(5):
        lines.append(head)
        desc = ("%11s" * 2 + "%11.4g" * 5) % (f"{e}/4", "3.55G", 0.1 - 0.01 * e, 0.06, 0.04, 197, 640)
        lines.append(f"{desc}: 100%|██████████| 8/8 [00:04<00:00,  1.79it/s]")
        lines.append(("%22s" + "%11i" * 2 + "%11.3g" * 4) % ("all", 128, 929, 0.7, 0.6, 0.5 + 0.01 * e, 0.4))
    run = _read(tmp_path, lines)
    assert run.format == "console/yolo"
    assert _series(run, "train/box_loss") == (5, 0.0, 4.0, 0.1, pytest.approx(0.06))
    assert _series(run, "metrics/mAP50(B)") == (5, 0.0, 4.0, 0.5, 0.54)


def test_deit_metric_logger(tmp_path):
    """facebookresearch/deit@7e160fe43f0252d17191b71cbb5826254114ea5b engine.py:25-27 (MetricLogger(delimiter='  '),
    header 'Epoch: [{}]'), utils.py:25 (SmoothedValue '{median:.4f} ({global_avg:.4f})'), utils.py:100-105
    ('{}: {}' per meter), utils.py:124-133 (header, '[{0:<width>d}/{1}]', 'eta: {eta}', meters, 'time: {time}',
    'data: {data}', 'max mem: {memory:.0f}'); the torchvision references' MetricLogger prints the same."""
    lines = [
        f"Epoch: [{e}]  [{i:>4d}/1251]  eta: 1:23:45  lr: {1e-6:.6f}  loss: {6.9078 - 0.01 * (e * 4 + i // 400):.4f} (6.9078)  "
        f"time: 4.0152  data: 2.1000  max mem: 10000"
        for e in range(3)
        for i in (0, 400, 800, 1200)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 0.0, 3702.0, 6.9078, pytest.approx(6.7978))


def test_megatron_lm(tmp_path):
    """NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553 megatron/training/training.py:3567-3640
    (' [{now:%Y-%m-%d %H:%M:%S.%f}]', ' iteration {:8d}/{:8d} |', ' consumed samples: {:12d} |',
    ' elapsed time per iteration (ms): {:.1f} |', ' learning rate: {:.6E} |', ' global batch size: {:5d} |',
    ' {key}: {:.6E} |' per loss, ' loss scale: {:.1f} |', ' grad norm: {:.3f} |',
    ' number of skipped iterations: {:3d} |')."""
    lines = [
        f" [2025-01-01 10:00:{i % 60:02d}.123456] iteration {i:8d}/{5000:8d} | consumed samples: {i * 128:12d} | "
        f"elapsed time per iteration (ms): {412.3:.1f} | learning rate: {1e-4:.6E} | global batch size: {128:5d} | "
        f"lm loss: {10.5 - 0.001 * i:.6E} | loss scale: {1.0:.1f} | grad norm: {1.234:.3f} | "
        f"number of skipped iterations: {0:3d} | number of nan iterations: {0:3d} |"
        for i in range(10, 1010, 10)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/megatron" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (100, 10.0, 1000.0, 10.49, pytest.approx(9.5))
    assert run.series["grad_norm"].values[0] == 1.234


def test_keras3_progbar(tmp_path):
    """keras-team/keras@3422977a5e38fb2f7709aaa9a08e47f0c43d0f60 keras/src/callbacks/progbar_logger.py:55
    ('Epoch {epoch + 1}/{epochs}') and keras/src/utils/progbar.py:152-199 (bold '%{n}d/%d', a green and a grey
    run of '━', the time in bold, then ' - {k}:' and ' {avg:.4f}' per metric)."""
    lines = []
    for e in range(1, 6):
        lines.append(f"Epoch {e}/5")
        lines.append(
            "\x1b[1m1875/1875\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m3s\x1b[0m 1ms/step"
            f" - accuracy: {0.8 + 0.01 * e:.4f} - loss: {0.5 - 0.05 * e:.4f} - val_accuracy: 0.8800 - val_loss: {0.45 - 0.01 * e:.4f}"
        )
    run = _read(tmp_path, lines)
    assert run.format == "console/keras"
    assert _series(run, "loss") == (5, 1.0, 5.0, 0.45, 0.25)
    assert _series(run, "val_loss") == (5, 1.0, 5.0, 0.44, 0.4)


def test_fairseq_simple_progress(tmp_path):
    """facebookresearch/fairseq@3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99 fairseq_cli/train.py:19 (logging format
    '%(asctime)s | %(levelname)s | %(name)s | %(message)s'), fairseq/logging/progress_bar.py:140 (prefix
    'epoch {:03d}'), :284 ('{}:  {:5d} / {:d} {}'), :169 (stats as 'key=value' joined by ', ')."""
    lines = [
        f"2025-01-01 10:00:00 | INFO | train_inner | epoch {e:03d}:  {i:5d} / 500 loss={9.0 - 0.001 * (e * 500 + i):.3f}, "
        f"ppl=512.1, wps=12000.5, ups=3.2, wpb=3800, bsz=120, num_updates={(e - 1) * 500 + i}, lr=0.0005, gnorm=1.2, "
        "train_wall=31, gb_free=10.1, wall=100"
        for e in (1, 2)
        for i in range(100, 501, 100)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/fairseq" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (10, 100.0, 1000.0, 8.4, pytest.approx(7.5))


def test_keras2_progbar(tmp_path):
    """keras-team/tf-keras@dd0a7237b9b24132dba3f491f3c84b0094ab796e tf_keras/utils/generic_utils.py:238
    ('%{n}d/%d [' then '=' * done, '>' and '.'), :275 (' - {k}:' per metric, values as '%.4f' or '%.4e');
    the epoch header 'Epoch k/N' printed by the ProgbarLogger."""
    lines = []
    for e in range(1, 4):
        lines.append(f"Epoch {e}/3")
        lines.append(
            f"  32/1875 [..............................] - ETA: 10s - loss: {2.3 - 0.1 * e:.4f} - accuracy: 0.1000"
        )
        lines.append(
            f"1875/1875 [==============================] - 6s 3ms/step - loss: {0.5 - 0.1 * e:.4f} - accuracy: 0.8500"
            f" - val_loss: {0.45 - 0.1 * e:.4f} - val_accuracy: 0.8800"
        )
    run = _read(tmp_path, lines)
    assert run.format == "console/keras"
    assert _series(run, "loss") == (3, 1.0, 3.0, 0.4, pytest.approx(0.2))
    assert _series(run, "val_loss")[4] == pytest.approx(0.15)


def test_torchvision_classification_reference(tmp_path):
    """pytorch/vision@017e9b99b5daddec3d82d5b05fe26f6834c48fa9 references/classification/train.py train_one_epoch
    (MetricLogger(delimiter='  '), meters 'lr' fmt '{value}' and 'img/s' added first, then loss, acc1, acc5;
    header 'Epoch: [{epoch}]') and evaluate (header 'Test: ', then '{header} Acc@1 {:.3f} Acc@5 {:.3f}');
    references/classification/utils.py log_every ('[{i:>width}/{n}]', 'eta: ', meters, 'time: ', 'data: ',
    'max mem: ')."""
    lines = []
    for e in range(3):
        for k, i in enumerate(range(0, 5000, 1000)):
            lines.append(
                f"Epoch: [{e}]  [{i:>4d}/5005]  eta: 1:02:03  lr: 0.1  img/s: 812.3412  "
                f"loss: {_loss(e, k):.4f} ({6.9:.4f})  acc1: 0.7812 (0.1000)  acc5: 3.1250 (0.5000)  "
                "time: 0.4120  data: 0.0120  max mem: 10123"
            )
        lines.append(f"Epoch: [{e}] Total time: 0:34:21")
        lines.append("Test:   [  0/196]  eta: 0:01:00  loss: 5.1000 (5.1000)  acc1: 9.3750 (9.3750)  acc5: 25.0 (25.0)")
        lines.append(f"Test:  Acc@1 {10.0 + e:.3f} Acc@5 {30.0 + e:.3f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (15, 0.0, 14010.0, 6.9, pytest.approx(6.66))
    assert run.series["acc1"].values[0] == 0.7812


def test_mmcv_text_logger_hook(tmp_path):
    """open-mmlab/mmcv@1d8f9285674f2b1f9f2d7758d3f945ebb74fcf82 (branch 1.x) mmcv/runner/hooks/logger/text.py:128-181
    (TextLoggerHook, mmdet 2.x and mmcls 0.x: 'Epoch [{epoch}][{iter}/{len}]\\t' + 'lr: {:.3e}, ' + 'eta: {}, ' +
    'time: {:.3f}, data_time: {:.3f}, ' + 'memory: {}, ' + '{name}: {val:.4f}' joined by ', '; evaluation
    'Epoch({mode}) [{epoch}][{iter}]\\t' and the metrics)."""
    lines = []
    for e in range(1, 5):
        for k, i in enumerate((50, 100, 150)):
            lines.append(
                f"2024-01-01 10:00:00,000 - mmdet - INFO - Epoch [{e}][{i}/150]\tlr: {2e-2:.3e}, eta: 1:00:00, "
                f"time: 0.412, data_time: 0.010, memory: 3000, loss_rpn_cls: 0.0500, loss_rpn_bbox: 0.0300, "
                f"loss_cls: 0.4000, acc: 91.2000, loss_bbox: 0.3000, loss: {1.5 - 0.01 * (e * 3 + k):.4f}, grad_norm: 4.1000"
            )
        lines.append(
            f"2024-01-01 10:00:00,000 - mmdet - INFO - Epoch(val) [{e}][625]\tbbox_mAP: {0.2 + 0.01 * e:.4f}, bbox_mAP_50: 0.4000"
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 50.0, 600.0, 1.47, pytest.approx(1.36))


def test_mmengine_iteration_based(tmp_path):
    """open-mmlab/mmengine@254342938d9bde1775c39ea7d5181c5d294026c4 mmengine/runner/log_processor.py:208
    ('Iter({mode}) [{cur_iter_str}/{dataloader_len}]  '), :159 (learning rates as '{key}: {value:.4e}'), :215-229
    (eta, time, data_time, memory) and :245 (the rest, '{name}: {val}'), as mmsegmentation prints it (decode.loss_ce,
    decode.acc_seg); validation 'Iter(val) [{i}/{n}]' then the metrics ('aAcc: ...  mIoU: ...')."""
    lines = []
    for k, i in enumerate(range(50, 2050, 50)):
        lines.append(
            f"12/04 10:00:00 - mmengine - INFO - Iter(train) [{i:>5d}/80000]  base_lr: {1e-2:.4e} lr: {1e-2:.4e}  "
            f"eta: 1 day, 0:00:00  time: 0.4120  data_time: 0.0100  memory: 5000  loss: {2.0 - 0.01 * k:.4f}  "
            f"decode.loss_ce: {1.5 - 0.01 * k:.4f}  decode.acc_seg: 60.0000  aux.loss_ce: 0.5000  aux.acc_seg: 55.0000"
        )
        if i % 1000 == 0:
            lines.append(
                f"12/04 10:00:00 - mmengine - INFO - Iter(val) [500/500]    aAcc: 80.0000  mIoU: {30.0 + i / 1000:.4f}  mAcc: 40.0000  data_time: 0.0100  time: 0.1000"
            )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 50.0, 2000.0, 2.0, pytest.approx(1.61))


def test_mmpretrain_epoch_with_validation_accuracy(tmp_path):
    """open-mmlab/mmengine@254342938d9bde1775c39ea7d5181c5d294026c4 mmengine/runner/log_processor.py:193
    ('Epoch({mode}){cur_epoch_str}[{cur_iter_str}/{dataloader_len}]  ') for train and val, with mmpretrain's
    'accuracy/top1' and 'accuracy/top5' metrics on the val line."""
    lines = []
    for e in range(1, 6):
        for k, i in enumerate((100, 200, 300, 391)):
            lines.append(
                f"2024/01/01 10:00:00 - mmengine - INFO - Epoch(train)   [{e}][{i:>3}/391]  lr: {1e-1:.4e}  eta: 0:10:00  "
                f"time: 0.0500  data_time: 0.0100  memory: 1000  loss: {2.3 - 0.05 * (e * 4 + k):.4f}"
            )
        lines.append(
            f"2024/01/01 10:00:00 - mmengine - INFO - Epoch(val) [{e}][100/100]    accuracy/top1: {40.0 + e:.4f}  "
            "accuracy/top5: 90.0000  data_time: 0.0100  time: 0.0200"
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 100.0, 1955.0, pytest.approx(2.1), pytest.approx(1.15))


def test_yolov8(tmp_path):
    """ultralytics/ultralytics@00016300105e79eb8b1646ab03c3d1df9274523f ultralytics/engine/trainer.py _do_train (the
    header self.progress_string(): '%11s' * (4 + n) of Epoch GPU_mem, the loss names, Instances Size; the bar's
    description '%11s' * 2 + '%11.4g' * (2 + n) with the epoch as '{epoch + 1}/{epochs}'); the validator's
    '%22s' + '%11i' * 2 + '%11.3g' * 4 row for 'all'."""
    names = ("box_loss", "cls_loss", "dfl_loss")
    head = ("%11s" * 7) % ("Epoch", "GPU_mem", *names, "Instances", "Size")
    lines = []
    for e in range(10):
        lines.append(head)
        desc = ("%11s" * 2 + "%11.4g" * 5) % (f"{e + 1}/10", "2.61G", 1.2 - 0.05 * e, 1.4, 1.2, 212, 640)
        lines.append(f"{desc}: 100%|██████████| 8/8 [00:02<00:00,  3.21it/s]")
        lines.append(
            ("%22s" + "%11s" * 6) % ("Class", "Images", "Instances", "Box(P", "R", "mAP50", "mAP50-95)")
            + ": 100%|██████████| 4/4 [00:01<00:00,  3.80it/s]"
        )
        lines.append(("%22s" + "%11i" * 2 + "%11.3g" * 4) % ("all", 128, 929, 0.6, 0.5, 0.5 + 0.01 * e, 0.4))
    run = _read(tmp_path, lines)
    assert _series(run, "train/box_loss") == (10, 1.0, 10.0, 1.2, pytest.approx(0.75))
    assert _series(run, "metrics/mAP50(B)")[3:] == (0.5, 0.59)


def test_deepspeed_pipeline_engine(tmp_path):
    """microsoft/DeepSpeed@38327e07f6cd39b63418f60cedd1651b0be3e7c3 deepspeed/runtime/pipe/engine.py:401-406
    ('steps: {global_steps} loss: {agg_train_loss:0.4f} ' then 'iter time (s): {:0.3f} samples/sec: {:0.3f}'),
    with deepspeed/runtime/engine.py:2489's '[Rank 0] step={step}, skipped={}, lr={lr}, mom={mom}' through the
    logger format of deepspeed/utils/logging.py:63 ('[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] ')."""
    lines = []
    for s in range(10, 510, 10):
        if s % 100 == 0:
            lines.append(
                f"[2024-01-01 10:00:00,000] [INFO] [logging.py:128:log_dist] [Rank 0] step={s}, skipped=0, "
                "lr=[0.0001, 0.0001], mom=[(0.9, 0.95), (0.9, 0.95)]"
            )
        lines.append(f"steps: {s} loss: {10.0 - 0.01 * s:0.4f} iter time (s): {0.512:0.3f} samples/sec: {250.0:0.3f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (50, 10.0, 500.0, 9.9, pytest.approx(5.0))


def test_opennmt_py_xent(tmp_path):
    """OpenNMT/OpenNMT-py@97111d97551c24857076a4102eabdb468b35cff4 onmt/utils/statistics.py:124-128
    ('Step %s; acc: %2.1f; ppl: %5.1f; xent: %2.1f; lr: %7.5f; sents: %7.0f; bsz: %4.0f/%4.0f/%2.0f;
    %3.0f/%3.0f tok/s; %6.0f sec;', the step as '%2d/%5d'), onmt/utils/report_manager.py:154-155
    ('Validation perplexity: %g', 'Validation accuracy: %g'), onmt/utils/logging.py:16 ('[%(asctime)s %(levelname)s] ')."""
    lines = []
    for s in range(100, 3100, 100):
        xent = 7.5 - 0.1 * (s // 100)
        lines.append(
            f"[2024-01-01 10:00:00,000 INFO] Step {s:2d}/{10000:5d}; acc: {10 + s / 100:2.1f}; ppl: {2.718**xent:5.1f}; "
            f"xent: {xent:2.1f}; lr: {0.001:7.5f}; sents: {1234:7.0f}; bsz: {456:4.0f}/{789:4.0f}/{12:2.0f}; "
            f"{1234:3.0f}/{5678:3.0f} tok/s; {30 * s / 100:6.0f} sec;"
        )
        if s % 1000 == 0:
            lines.append(f"[2024-01-01 10:00:00,000 INFO] Validation perplexity: {2.718 ** (xent + 0.2):g}")
            lines.append(f"[2024-01-01 10:00:00,000 INFO] Validation accuracy: {20 + s / 200:g}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "xent"
    assert _series(run, "xent") == (30, 100.0, 3000.0, 7.4, pytest.approx(4.5))


def test_paddleocr(tmp_path):
    """PaddlePaddle/PaddleOCR@adc62fcde463e60a55b14181b0382b5473422a37 tools/program.py train (the log line
    'epoch: [{}/{}], global_step: {}, {logs}, avg_reader_cost: {:.5f} s, avg_batch_cost: {:.5f} s,
    avg_samples: {}, ips: {:.5f} samples/s, eta: {}', logs as '{}: {:x}' joined by ', ' from ppocr/utils/stats.py)
    through ppocr/utils/logging.py's '[%(asctime)s] %(name)s %(levelname)s: %(message)s'."""
    lines = [
        f"[2024/01/01 10:00:00] ppocr INFO: epoch: [{e}/100], global_step: {g}, lr: 0.001000, "
        f"loss: {12.0 - 0.05 * g / 10:.6f}, loss_shrink_maps: 5.1, loss_threshold_maps: 3.2, loss_binary_maps: 1.0, "
        "avg_reader_cost: 0.10000 s, avg_batch_cost: 0.50000 s, avg_samples: 8.0, ips: 16.00000 samples/s, eta: 1:00:00"
        for e in range(1, 5)
        for g in range((e - 1) * 100 + 10, e * 100 + 1, 10)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 10.0, 400.0, 11.95, pytest.approx(10.0))


def test_paddledetection(tmp_path):
    """PaddlePaddle/PaddleDetection@0191759ed92c6249d81d7ec3fd89276623f437e9 ppdet/engine/callbacks.py LogPrinter
    .on_step_end ('Epoch: [{}]', '[{:width}/{}]', 'learning_rate: {lr:.6f}', '{meters}', 'eta: {eta}',
    'batch_cost: {btime}', 'data_cost: {dtime}', 'ips: {ips:.4f} images/s' joined by ' '; the meters
    '{name}: {median:.6f}' joined by '  '; the times '{median:.4f} ({avg:.4f})'), ppdet logger '[%m/%d %H:%M:%S] ppdet.engine INFO: '."""
    lines = [
        f"[01/01 10:00:00] ppdet.engine INFO: Epoch: [{e}] [{i:>4d}/1000] learning_rate: 0.000100 "
        f"loss: {3.0 - 0.1 * (e * 5 + i // 200):.6f}  loss_cls: 1.000000  loss_iou: 0.500000  eta: 1:00:00 "
        "batch_cost: 0.5000 (0.5100) data_cost: 0.0100 (0.0110) ips: 16.0000 images/s"
        for e in range(4)
        for i in range(0, 1000, 200)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 0.0, 3800.0, 3.0, pytest.approx(1.1))


def test_fastai_console_table(tmp_path):
    """fastai/fastai@1678d7ff1dd36a2286ee49d759182a8e13515c4d fastai/callback/progress.py ProgressCallback._write_stats
    (values as '{:.6f}', the rest as str) and fastai/fastprogress@0408102297037bf67bb976020de84cbe1efac202
    fastprogress/fastprogress.py ConsoleMasterBar.write (names padded to 8, joined by '  '; each value padded to
    its name's width plus 2)."""
    names = ["epoch", "train_loss", "valid_loss", "accuracy", "time"]
    padded = [n + " " * (8 - len(n)) if len(n) < 8 else n for n in names]
    lines = ["  ".join(padded)]
    for e in range(12):
        vals = [str(e), f"{1.2 - 0.05 * e:.6f}", f"{1.0 - 0.03 * e:.6f}", f"{0.6 + 0.02 * e:.6f}", "00:12"]
        lines.append("".join(t + " " * (2 + len(n) - len(t)) for t, n in zip(vals, padded)))
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "valid_loss"
    assert _series(run, "train_loss") == (12, 0.0, 11.0, 1.2, pytest.approx(0.65))
    assert _series(run, "valid_loss") == (12, 0.0, 11.0, 1.0, pytest.approx(0.67))


def test_keras2_verbose_2(tmp_path):
    """keras-team/tf-keras@dd0a7237b9b24132dba3f491f3c84b0094ab796e tf_keras/utils/generic_utils.py:298-325
    (verbose=2: '%{n}d/%d' then ' - {k}: {avg:.4f}' per metric, then ' - {t}s/epoch - {t}ms/step')."""
    lines = []
    for e in range(1, 11):
        lines.append(f"Epoch {e}/10")
        lines.append(
            f"1875/1875 - loss: {0.5 - 0.03 * e:.4f} - accuracy: {0.8 + 0.01 * e:.4f} - val_loss: {0.45 - 0.02 * e:.4f}"
            " - val_accuracy: 0.8800 - 6s/epoch - 3ms/step"
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (10, 1.0, 10.0, 0.47, pytest.approx(0.2))
    assert _series(run, "val_loss")[3:] == (0.43, pytest.approx(0.25))


def _hf_dicts(steps, per_epoch=100):
    """The dicts the Trainer logs (transformers' Trainer._maybe_log_save_evaluate: loss, grad_norm,
    learning_rate, epoch; an eval dict with eval_loss, eval_runtime ...)."""
    for s in steps:
        yield (
            s,
            {
                "loss": round(2.5 - 0.001 * s, 4),
                "grad_norm": 1.25,
                "learning_rate": 5e-05,
                "epoch": round(s / per_epoch, 2),
            },
        )


def test_hf_trainer_printer_callback_without_tqdm(tmp_path):
    """huggingface/transformers@01081ce2c31e51fa3876e386c5aef784d38e958a src/transformers/trainer_callback.py
    PrinterCallback.on_log ('print(logs)' after popping total_flos: disable_tqdm=True), the eval dict and the
    closing train_runtime dict."""
    lines = []
    for s, d in _hf_dicts(range(10, 510, 10)):
        lines.append(str(d))
        if s % 100 == 0:
            lines.append(
                str(
                    {
                        "eval_loss": round(2.4 - 0.001 * s, 4),
                        "eval_runtime": 3.2,
                        "eval_samples_per_second": 310.5,
                        "eval_steps_per_second": 9.7,
                        "epoch": s / 100,
                    }
                )
            )
    lines.append(
        str(
            {
                "train_runtime": 812.3,
                "train_samples_per_second": 9.8,
                "train_steps_per_second": 0.6,
                "train_loss": 2.25,
                "epoch": 5.0,
            }
        )
    )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "eval_loss"
    assert _series(run, "loss")[0] == 50 and _series(run, "loss")[3:] == (2.49, 2.0)
    assert _series(run, "eval_loss")[0] == 5 and _series(run, "eval_loss")[3:] == (2.3, 1.9)


def test_hf_trainer_progress_callback_with_tqdm(tmp_path):
    """huggingface/transformers@01081ce2c31e51fa3876e386c5aef784d38e958a src/transformers/trainer_callback.py
    ProgressCallback (tqdm(total=max_steps); on_log: training_bar.write(str(logs))): redirected to a file, the
    bar's '\\r' renders and the dicts share lines."""
    out = []
    for s, d in _hf_dicts(range(10, 510, 10)):
        bar = f"{100 * s // 500:3d}%|{'█' * (s // 50):<10}| {s}/500 [01:{s % 60:02d}<05:00,  1.60it/s]"
        out.append("\r" + bar + str(d) + "\n")
    path = tmp_path / "train.log"
    path.write_text("".join(out), encoding="utf-8")
    from trainlint.api import read_run

    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 50 and _series(run, "loss")[3:] == (2.49, 2.0)


def _grpo_dict(s: int) -> dict:
    """huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8 trl/trainer/grpo_trainer.py:2232-2904 (the
    metrics GRPOTrainer adds to the Trainer's logs): GRPO's loss is 0 until the policy moves off the reference
    (the first 15 logged steps here), and kl is nan before the reference is used."""
    return {
        "loss": 0.0 if s <= 15 else round(0.0001 * (s - 15), 4),
        "grad_norm": 0.11,
        "learning_rate": 1.5e-05,
        "rewards/reward_fn": round(1.0 + 0.01 * s, 3),
        "reward": round(1.0 + 0.01 * s, 3),
        "reward_std": 0.78,
        "completion_length": 230.1,
        "kl": float("nan") if s <= 2 else round(0.001 * s, 4),
        "epoch": round(s / 2000, 2),
    }


def test_grpo_dicts_after_a_bar_drawn_without_width(tmp_path):
    """tqdm/tqdm@f6a30fab726ab8e794a9db88b4392ce207760937 tqdm/std.py:617-618 (with ncols=0, as a notebook's
    saved output has it, the render is l_bar without its '|' and r_bar without its '|': '  2% 3/200
    [01:40<1:50:05, 33.53s/it]') and huggingface/transformers@01081ce2c31e51fa3876e386c5aef784d38e958a
    src/transformers/trainer_callback.py ProgressCallback.on_log (training_bar.write(str(logs))): an unsloth
    GRPO run's dict on the bar's line, the script's own lines between."""
    out = []
    for s in range(1, 41):
        out.append(
            f"\r{100 * s // 200:3d}% {s}/200 [00:{s:02d}<1:50:05, 33.53s/it][*] vLLM sync #{s}: 28 weights pushed\n"
        )
        out.append(f"[!] EMERGENT TAGS DETECTED (Step {s})\n")
        out.append(f"\r{100 * s // 200:3d}% {s}/200 [00:{s:02d}<1:50:05, 33.53s/it]{_grpo_dict(s)}\n")
    path = tmp_path / "grpo_unsloth.log"
    path.write_text("".join(out), encoding="utf-8")
    run = read_run(path)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 1.0, 40.0, 0.0, 0.0025)
    assert _series(run, "reward")[3:] == (1.01, 1.4) and run.series["kl"].values[-1] == 0.04


def test_grpo_dicts_without_a_bar_whose_epoch_repeats(tmp_path):
    """huggingface/transformers v4.16.2 src/transformers/trainer.py:1852 (Trainer.log: logs['epoch'] =
    round(self.state.epoch, 2)) and trainer_callback.py PrinterCallback.on_log (print(logs), with
    disable_tqdm=True): a long GRPO run logs many steps under one printed epoch (0.0, 0.01, ...), so the
    dicts' order, not their epoch, tells the steps apart."""
    lines = []
    for s in range(1, 41):
        lines += ["-------------------- Question:", f"What is {s} + {s}?", "Answer:", str(2 * s), str(_grpo_dict(s))]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 1.0, 40.0, 0.0, 0.0025)
    assert run.series["epoch"].values[-1] == 0.02


def test_trl_sft_trainer_dicts(tmp_path):
    """huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8 trl/trainer/sft_trainer.py:1761-1810 (the metrics
    entropy, mean_token_accuracy, num_tokens added to the Trainer's logs), printed by the Trainer's callbacks."""
    lines = []
    for s in range(5, 205, 5):
        lines.append(
            str(
                {
                    "loss": round(1.9 - 0.005 * s, 4),
                    "grad_norm": 0.84,
                    "learning_rate": 2e-05,
                    "num_tokens": 4096.0 * s,
                    "mean_token_accuracy": round(0.55 + 0.001 * s, 4),
                    "entropy": 1.2,
                    "epoch": round(s / 200, 3),
                }
            )
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 40 and _series(run, "loss")[3:] == (1.875, pytest.approx(0.9))


def test_trl_grpo_trainer_dicts(tmp_path):
    """huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8 trl/trainer/grpo_trainer.py:2232-2904 (the
    metrics completions/mean_length, rewards/{name}/mean and /std, reward, kl added to the Trainer's logs)."""
    lines = []
    for s in range(1, 41):
        lines.append(
            str(
                {
                    "loss": round(0.01 + 0.0005 * s, 4),
                    "grad_norm": 0.3,
                    "learning_rate": 1e-06,
                    "num_tokens": 2048.0 * s,
                    "completions/mean_length": 180.5,
                    "rewards/format_reward/mean": 0.5,
                    "rewards/format_reward/std": 0.2,
                    "reward": round(0.4 + 0.01 * s, 3),
                    "reward_std": 0.3,
                    "kl": round(0.001 * s, 4),
                    "epoch": round(s / 40, 3),
                }
            )
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 40 and _series(run, "loss")[3:] == (0.0105, 0.03)
    assert run.series["kl"].values[-1] == 0.04


def _tqdm_epochs(desc, total, metrics, epochs, rate=", 95.12it/s"):
    """A tqdm bar redirected to a file: the renders of one epoch joined by '\r', a newline after its last."""
    out = []
    for e in range(epochs):
        renders = []
        for n in range(total // 4, total + 1, total // 4):
            post = ", ".join(f"{k}={v:.3f}" for k, v in metrics(e, n).items())
            renders.append(
                f"{desc(e)}: {100 * n // total:3d}%|{'█' * (10 * n // total):<10}| {n}/{total} [00:01<00:00{rate}, {post}]"
            )
        out.append("\r" + "\r".join(renders) + "\n")
    return "".join(out)


def test_lightning_tqdm_progress_bar(tmp_path):
    """Lightning-AI/pytorch-lightning@7f0c3436cd3f6ad3753125672024fc415cbcb414
    src/lightning/pytorch/callbacks/progress/tqdm_progress.py:105 (BAR_FORMAT '{l_bar}{bar}| {n_fmt}/{total_fmt}
    [{elapsed}<{remaining}, {rate_noinv_fmt}{postfix}]'), :272 ('Epoch {current_epoch}'), :281 (set_postfix of
    get_metrics: v_num and the logged metrics); the epoch's last render carries val_loss."""

    def metrics(e, n):
        out = {"v_num": 0, "train_loss": 0.9 - 0.1 * e - 0.0001 * n}
        if n == 400:
            out["val_loss"] = 0.85 - 0.1 * e
        return out

    path = tmp_path / "train.log"
    path.write_text(_tqdm_epochs(lambda e: f"Epoch {e}", 400, metrics, 6), encoding="utf-8")
    run = read_run(path)
    assert run.format == "console/lightning" and run.roles["loss"] == "train_loss"
    # six epochs are fewer than ten points: train_loss at each of the 24 redraws (probes16d), val_loss once an epoch
    assert _series(run, "train_loss")[:3] == (24, 100.0, 2400.0)
    assert _series(run, "train_loss")[3:] == (0.89, pytest.approx(0.36))
    assert _series(run, "val_loss")[0] == 6 and _series(run, "val_loss")[3:] == (0.85, pytest.approx(0.35))


def test_lightning_rich_progress_bar(tmp_path):
    """Lightning-AI/pytorch-lightning@7f0c3436cd3f6ad3753125672024fc415cbcb414
    src/lightning/pytorch/callbacks/progress/rich_progress.py:712-722 (description, bar, 'n/total', the time
    column '{elapsed} • {remaining}' of :162, the speed), :228-235 (MetricsTextColumn '{name}: {value:.3f}'),
    :657 ('Epoch {current_epoch}'); a terminal keeps each epoch's first and last frames, which show the
    validation values of the epoch before (the bar is drawn before validation ends)."""
    lines = []
    for e in range(10):
        val = f" val_loss: {0.8 - 0.04 * (e - 1):.3f}" if e else ""
        for n in (1, 1875):
            lines.append(
                f"Epoch {e}/9  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ {n}/1875 0:00:15 • 0:00:00 120.52it/s v_num: 0 "
                f"train_loss: {0.9 - 0.05 * e - 0.0001 * (n // 1875):.4f}{val}"
            )
    run = _read(tmp_path, lines)
    assert run.format == "console/lightning-rich" and run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (10, 1875.0, 18750.0, 0.8999, pytest.approx(0.4499))
    assert _series(run, "val_loss") == (9, 1875.0, 16875.0, 0.8, pytest.approx(0.48))


def test_nemo_megatron_progress_bar(tmp_path):
    """NVIDIA/NeMo@7468268e2ec91e6ed9a2fc03c3fc2faefa1a87bf nemo/lightning/pytorch/callbacks/progress_bar.py
    (MegatronProgressBar: bar_format '{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}
    [{elapsed}<{remaining}{postfix}]', the total max_steps, 'Epoch {current_epoch}', set_postfix of the
    metrics), with the prog_bar metrics of NeMo's GPT model (reduced_train_loss, lr, global_step, consumed_samples)."""

    def metrics(e, n):
        return {
            "reduced_train_loss": 9.0 - 0.005 * n,
            "lr": 3e-4,
            "global_step": n - 1.0,
            "consumed_samples": 256.0 * n,
        }

    path = tmp_path / "train.log"
    path.write_text(_tqdm_epochs(lambda e: f"Epoch {e}", 1000, metrics, 1, rate=""), encoding="utf-8")
    run = read_run(path)
    assert run.roles["loss"] == "reduced_train_loss"
    assert _series(run, "reduced_train_loss")[0] >= 1
    assert _series(run, "reduced_train_loss")[4] == pytest.approx(4.0)


def test_espnet2_reporter(tmp_path):
    """espnet/espnet@01d307c42f048dea29aa63b80f98996485d35b14 espnet2/train/reporter.py SubReporter.log_message
    ('{epoch}epoch:{key}:{start}-{end}batch: ' then '{key2}={v:.3f}' ('.3e' above 1e3 or below 1e-3) joined
    by ', ') and Reporter.log_message ('{epoch}epoch results: [train] ..., [valid] ...'), through espnet2's
    logging format '[{host}] %(asctime)s (%(module)s:%(lineno)d) %(levelname)s: %(message)s'."""
    head = "[gpu01] 2024-01-01 10:00:00,000 (trainer:{}) INFO: "
    lines = []
    for e in range(1, 6):
        for k, (a, b) in enumerate(((1, 100), (101, 200), (201, 300))):
            loss = 120.0 - 10 * e - k
            lines.append(
                head.format(762) + f"{e}epoch:train:{a}-{b}batch: iter_time={1.2e-4:.3e}, forward_time=0.123, "
                f"loss_ctc={loss + 20:.3f}, loss_att={loss - 10:.3f}, acc=0.450, loss={loss:.3f}, backward_time=0.101, "
                f"grad_norm=50.123, clip=100.000, loss_scale=1.000, optim_step_time=0.033, optim0_lr0={1e-4:.3e}, train_time=0.412"
            )
        lines.append(
            head.format(338)
            + f"{e}epoch results: [train] iter_time=0.000, forward_time=0.123, loss_ctc={130 - 10 * e:.3f}, "
            f"loss_att={100 - 10 * e:.3f}, acc=0.450, loss={110.0 - 10 * e:.3f}, time=2 minutes and 3.45 seconds, "
            f"total_count={300 * e}, gpu_max_cached_mem_GB=10.123, [valid] loss_ctc=100.000, loss_att=80.000, acc=0.500, "
            f"cer_ctc=0.300, loss={90.0 - 10 * e:.3f}, time=5.12 seconds, total_count={20 * e}, gpu_max_cached_mem_GB=10.123"
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 15 and _series(run, "loss")[3:] == (110.0, 68.0)


def test_yolox_trainer(tmp_path):
    """Megvii-BaseDetection/YOLOX@6ddff4824372906469a7fae2dc3206c7aa4bbaee yolox/core/trainer.py:255-279
    ('epoch: {}/{}, iter: {}/{}', 'gpu mem: {:.0f}Mb, mem: {:.1f}Gb', '{name}: {:.3f}s' per time meter,
    '{name}: {:.1f}' per loss meter, 'lr: {:.3e}', ', size: {:d}, ETA: {}') through loguru's
    '{time:YYYY-MM-DD HH:mm:ss} | {level} | {name}:{line} - {message}'."""
    lines = [
        f"2024-01-01 10:00:00 | INFO     | yolox.core.trainer:261 - epoch: {e}/300, iter: {i}/1000, gpu mem: 5000Mb, "
        f"mem: 10.0Gb, iter_time: 0.512s, data_time: 0.010s, total_loss: {15.0 - 0.5 * e - 0.1 * (i // 100):.1f}, "
        f"iou_loss: 4.3, l1_loss: 0.0, conf_loss: 8.0, cls_loss: 3.0, lr: {1e-5:.3e}, size: 640, ETA: 1 day, 2:03:04"
        for e in range(1, 4)
        for i in range(100, 1001, 100)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "total_loss"
    assert _series(run, "total_loss") == (30, 100.0, 3000.0, 14.4, pytest.approx(12.5))


def test_monai_stats_handler(tmp_path):
    """Project-MONAI/MONAI@d388d1c6fec8cb3a0eebee5b5a0b9776ca59ca83 monai/handlers/stats_handler.py:32-33
    (key_var_format '{}: {:.4f} ', tag 'Loss'), :289 ('Epoch: {epoch}/{max_epochs}, Iter: {iter}/{epoch_len} --'
    then the values), :216 ('Epoch[{epoch}] Metrics -- ' for the evaluator's metrics)."""
    lines = []
    for e in range(1, 6):
        for i in range(1, 11):
            lines.append(
                f"2024-01-01 10:00:00,000 - ignite.engine.engine.SupervisedTrainer - INFO - Epoch: {e}/5, Iter: {i}/10 -- "
                f"Loss: {0.9 - 0.1 * e - 0.001 * i:.4f} "
            )
        lines.append(
            f"2024-01-01 10:00:00,000 - ignite.engine.engine.SupervisedEvaluator - INFO - Epoch[{e}] Metrics -- val_mean_dice: {0.5 + 0.05 * e:.4f} "
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (50, 1.0, 50.0, 0.799, pytest.approx(0.39))


def test_speechbrain_train_logger(tmp_path):
    """speechbrain/speechbrain@9c826ef3937bac885c8a6ca86c6889a30f256fb5 speechbrain/utils/train_logger.py:65-119
    (FileTrainLogger: '{key}: {value}' joined by ', ', floats as '.2f' between 1 and 100 else '.2e'; the train
    and valid stats prefixed with the dataset name, each group after ' - ')."""

    def f(v):
        return f"{v:.2f}" if 1.0 < v < 100.0 else f"{v:.2e}"

    lines = [
        f"epoch: {e}, lr: {f(1.0)}, steps: {e * 500} - train loss: {f(3.0 - 0.1 * e)} - valid loss: {f(2.8 - 0.1 * e)}, "
        f"valid CER: {f(20.0 - e)}, valid WER: {f(30.0 - e)}"
        for e in range(1, 16)
    ]
    run = _read(tmp_path, lines, "train_log.txt")
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "valid_loss"
    assert _series(run, "train_loss")[0] == 15 and _series(run, "train_loss")[3:] == (2.9, 1.5)
    assert _series(run, "valid_loss")[3:] == (2.7, 1.3)


def test_nnunet_v2(tmp_path):
    """MIC-DKFZ/nnUNet@0e495086eb108ff79afe106291e8c15bd2f2bc3a nnunetv2/training/nnUNetTrainer/nnUNetTrainer.py:515-540
    (print_to_log_file: '{datetime}:' then each argument and a space), :1013-1015 ('Epoch {n}', 'Current learning
    rate: {lr}'), :1172-1177 ('train_loss', 'val_loss', 'Pseudo dice', 'Epoch time: {t} s'): the epoch on a line
    of its own, the losses (negative: soft Dice plus cross-entropy) on lines after it."""
    lines = []
    for e in range(12):
        t = f"2024-01-01 10:{e:02d}:00.123456:"
        lines += [
            f"{t} ",
            f"{t} Epoch {e} ",
            f"{t} Current learning rate: {0.01 * (1 - e / 1000) ** 0.9:.5f} ",
            f"{t} train_loss {-0.1 - 0.05 * e:.4f} ",
            f"{t} val_loss {-0.08 - 0.05 * e:.4f} ",
            f"{t} Pseudo dice [np.float32(0.{50 + e}), np.float32(0.6)] ",
            f"{t} Epoch time: 45.12 s ",
        ]
    run = _read(tmp_path, lines, "training_log_2024_1_1_10_00_00.txt")
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (12, 0.0, 11.0, -0.1, pytest.approx(-0.65))
    assert _series(run, "val_loss")[3:] == (-0.08, pytest.approx(-0.63))


def test_torchtune_disk_and_stdout_logger(tmp_path):
    """pytorch/torchtune@bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1 torchtune/training/metric_logging.py:183-188
    (DiskLogger.log_dict, txt: 'Step {step} | ' then '{name}:{data} ' per metric) and :218-222 (StdoutLogger,
    the same), with recipes/full_finetune_single_device.py:654-656 (loss, lr, tokens_per_second_per_gpu)."""
    lines = [f"Step {s} | loss:{2.1 - 0.01 * s} lr:2e-05 tokens_per_second_per_gpu:{1234.5 + s} " for s in range(1, 61)]
    run = _read(tmp_path, lines, "log_1700000000.txt")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (60, 1.0, 60.0, pytest.approx(2.09), pytest.approx(1.5))


def test_pytorch_examples_word_language_model(tmp_path):
    """pytorch/examples@77f55b912142e11fcfdf5b530231fb9c52f181e8 word_language_model/main.py:201-202 ('| epoch {:3d} |
    {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | loss {:5.2f} | ppl {:8.2f}') and :230-231 ('| end of
    epoch {:3d} | time: {:5.2f}s | valid loss {:5.2f} | valid ppl {:8.2f}') between lines of 89 dashes."""
    lines = []
    for e in range(1, 7):
        for k, b in enumerate(range(200, 2983, 200)):
            lines.append(
                f"| epoch {e:3d} | {b:5d}/{2983:5d} batches | lr {20.0:02.2f} | ms/batch {45.61:5.2f} | "
                f"loss {7.6 - 0.3 * e - 0.01 * k:5.2f} | ppl {2000.0:8.2f}"
            )
        lines += [
            "-" * 89,
            f"| end of epoch {e:3d} | time: {150.12:5.2f}s | valid loss {7.0 - 0.3 * e:5.2f} | valid ppl {300.0:8.2f}",
            "-" * 89,
        ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "valid_loss"
    assert _series(run, "loss") == (84, 200.0, 2983 * 5 + 2800.0, 7.3, pytest.approx(5.67))
    assert _series(run, "valid_loss")[0] == 6 and _series(run, "valid_loss")[3:] == (6.7, pytest.approx(5.2))


def test_pytorch_examples_mnist(tmp_path):
    """pytorch/examples@77f55b912142e11fcfdf5b530231fb9c52f181e8 mnist/main.py:46-48 ('Train Epoch: {} [{}/{}
    ({:.0f}%)]\\tLoss: {:.6f}') and its test summary ('\\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\\n')."""
    lines = []
    for e in range(1, 4):
        for k, seen in enumerate(range(0, 60000, 6400)):
            lines.append(
                f"Train Epoch: {e} [{seen}/60000 ({100.0 * seen / 60000:.0f}%)]\tLoss: {2.3 - 0.5 * e - 0.01 * k:.6f}"
            )
        lines += ["", f"Test set: Average loss: {0.3 - 0.05 * e:.4f}, Accuracy: {9500 + 100 * e}/10000 ({95 + e}%)", ""]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    s = _series(run, "loss")
    assert s[0] == 30 and s[3:] == (1.8, pytest.approx(0.71))


def test_wandb_output_log_of_a_hf_run(tmp_path):
    """wandb/wandb@5e466714e15dfea275af5f8c16e3cfd9b56da9fb wandb/sdk/lib/filenames.py (OUTPUT_FNAME 'output.log':
    the run's console as captured, '\\r' renders and ANSI colours kept), here holding the Trainer's dicts (see
    the PrinterCallback fixture) after wandb's own coloured banner lines."""
    lines = [
        "\x1b[34m\x1b[1mwandb\x1b[0m: Tracking run with wandb version 0.16.0",
        "\x1b[34m\x1b[1mwandb\x1b[0m: Run data is saved locally in /content/wandb/run-20240101_100000-abc123",
        "\x1b[34m\x1b[1mwandb\x1b[0m: Syncing run polished-sky-1",
    ]
    lines += [str(d) for _, d in _hf_dicts(range(10, 310, 10))]
    run = _read(tmp_path, lines, "output.log")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 30 and _series(run, "loss")[3:] == (2.49, 2.2)


def test_python_logging_basic_config_loop(tmp_path):
    """python/cpython@a49e078802348246d13585c64f8b0da2b445d249 Lib/logging/__init__.py (BASIC_FORMAT
    '%(levelname)s:%(name)s:%(message)s', logging.basicConfig's default) around a hand-written loop's
    'Epoch {e}/{n}, Step {s}/{m}, Loss: {:.4f}' and 'Validation loss: {:.4f}' messages."""
    lines = []
    for e in range(1, 4):
        for s in range(50, 501, 50):
            lines.append(f"INFO:root:Epoch {e}/3, Step {s}/500, Loss: {2.0 - 0.2 * e - 0.001 * s:.4f}")
        lines.append(f"INFO:root:Validation loss: {1.9 - 0.2 * e:.4f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (30, 50.0, 1500.0, 1.75, pytest.approx(0.9))


def test_python_logging_asctime_name_level_loop(tmp_path):
    """python/cpython@a49e078802348246d13585c64f8b0da2b445d249 Lib/logging/__init__.py (%(asctime)s with its
    ',msecs' default) in the '%(asctime)s - %(name)s - %(levelname)s - %(message)s' format the Hugging Face
    example scripts configure, around 'step {s}: train_loss={:.4f} lr={:.2e}' messages."""
    lines = [
        f"2024-01-01 10:00:{s % 60:02d},123 - __main__ - INFO - step {s}: train_loss={3.0 - 0.002 * s:.4f} lr={1e-4:.2e}"
        for s in range(100, 2100, 100)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (20, 100.0, 2000.0, 2.8, pytest.approx(-1.0))


def test_tf_estimator_logging_tensor_hook(tmp_path):
    """tensorflow/estimator@26a7dc2ef7d348be1745b21f952c311c38f68209 tensorflow_estimator/python/estimator/estimator.py
    :1417-1422 (LoggingTensorHook of {'loss', 'step'} every log_step_count_steps), :2083 ('Saving dict for global
    step %d: %s', 'k = v' joined by ', '), and tensorflow/tensorflow@c906f5315e02306e84a0fc904d132216af68705c
    tensorflow/python/training/basic_session_run_hooks.py (LoggingTensorHook: '%s = %s' per tag joined by ', ',
    then ' (%.3f sec)'; StepCounterHook 'global_step/sec: %g'), through TF 1's 'INFO:tensorflow:' prefix."""
    lines = ["INFO:tensorflow:loss = 2.3025851, step = 1"]
    for s in range(101, 3001, 100):
        lines.append(f"INFO:tensorflow:global_step/sec: {12.3456:g}")
        lines.append(f"INFO:tensorflow:loss = {2.3 - 0.0005 * s:.7g}, step = {s} ({8.123:.3f} sec)")
        if s % 1000 == 1 and s > 1:
            lines.append(
                f"INFO:tensorflow:Saving dict for global step {s}: accuracy = 0.9, global_step = {s}, loss = {2.0 - 0.0004 * s:.7g}"
            )
    run = _read(tmp_path, lines)
    assert (
        run.format == "console/tf-estimator" and run.roles["loss"] == "loss" and run.roles["eval_loss"] == "eval_loss"
    )
    assert _series(run, "loss")[:4] == (30, 1.0, 2901.0, pytest.approx(2.3025851))
    assert _series(run, "loss")[4] == pytest.approx(0.8495)
    assert _series(run, "eval_loss") == (2, 1001.0, 2001.0, pytest.approx(1.5996), pytest.approx(1.1996))


def test_accelerate_no_trainer_example(tmp_path):
    """huggingface/transformers examples/pytorch/language-modeling/run_clm_no_trainer.py (an Accelerate loop:
    logging.basicConfig(format='%(asctime)s - %(levelname)s - %(name)s - %(message)s', datefmt='%m/%d/%Y
    %H:%M:%S'), a tqdm bar over the optimisation steps, and per epoch
    logger.info(f'epoch {epoch}: perplexity: {perplexity} eval_loss: {eval_loss}') where eval_loss is a tensor)."""
    lines = []
    for e in range(5):
        loss = 3.4 - 0.1 * e
        lines.append(f"{100 * (e + 1) // 5:3d}%|{'█' * (2 * e + 2):<10}| {(e + 1) * 200}/1000 [02:00<08:00,  1.66it/s]")
        lines.append(
            f"12/04/2024 10:0{e}:00 - INFO - __main__ - epoch {e}: perplexity: {2.718281828**loss} "
            f"eval_loss: tensor({loss:.4f}, device='cuda:0')"
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "eval_loss"  # the only loss logged: judged as the loss, and said so
    assert "only loss logged is an eval loss" in run.meta["role_reasons"]["loss"]
    assert _series(run, "eval_loss") == (5, 0.0, 4.0, 3.4, pytest.approx(3.0))


def test_ray_train_result_tables(tmp_path):
    """ray-project/ray@0ff7fa559e9874ef2159dfb0e7447e8b072e161c python/ray/tune/experimental/output.py (Ray Train's
    console: 'Training finished iteration {i} at {time}. Total running time: {t}' and the result in a rounded
    box, one '│ {name}  {value} │' row per reported metric, checkpoint_dir_name first), as Ray's own
    documentation shows it after each ray.train.report()."""
    lines = []
    for i in range(1, 13):
        lines += [
            f"(RayTrainWorker pid=1193, ip=10.244.4.193) Train Epoch {i - 1}: 100%|██████████| 938/938 [00:20<00:00, 46.2it/s]",
            "",
            f"Training finished iteration {i} at 2024-11-21 19:{15 + i}:46. Total running time: {i}min 22s",
            "╭─────────────────────────────────────────╮",
            "│ Training result                         │",
            "├─────────────────────────────────────────┤",
            f"│ checkpoint_dir_name   checkpoint_{i - 1:06d} │",
            f"│ time_this_iter_s              {25.7394:9.4f} │",
            f"│ time_total_s                  {25.7 * i:9.3f} │",
            f"│ training_iteration                   {i:2d} │",
            f"│ accuracy                        {0.70 + 0.01 * i:.4f} │",
            f"│ loss                            {0.60 - 0.02 * i:.5f} │",
            "╰─────────────────────────────────────────╯",
        ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, 0.58, pytest.approx(0.36))
    assert run.series["accuracy"].values[-1] == pytest.approx(0.82)


def test_torchtitan(tmp_path):
    """pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a torchtitan/components/metrics.py:527-536
    (coloured 'step: {step:2}  loss: {:8.5f}  grad_norm: {:7.4f}  memory: {:5.2f}GiB({:.2f}%)  tps: {:,}
    tflops: {:,.2f}  mfu: {:.2f}%') and :571-575 ('validate step: {step:2}  loss: {:7.4f}  ... tps: {:,}')."""
    red, green, orange, turq, blue, cyan, magenta, reset = (f"\x1b[{c}m" for c in (31, 32, 33, 36, 34, 96, 35, 39))
    lines = []
    for s in range(1, 101):
        lines.append(
            f"[rank0]:[titan] 2025-01-01 10:00:00,000 - root - INFO - {red}step: {s:2}  {green}loss: {11.0 - 0.05 * s:8.5f}  "
            f"{orange}grad_norm: {1.2345:7.4f}  {turq}memory: {40.12:5.2f}GiB({50.25:.2f}%)  {blue}tps: {12345:,}  "
            f"{cyan}tflops: {234.5:,.2f}  {magenta}mfu: {23.71:.2f}%{reset}"
        )
        if s % 50 == 0:
            lines.append(
                f"[rank0]:[titan] 2025-01-01 10:00:00,000 - root - INFO - {red}validate step: {s:2}  "
                f"{green}loss: {10.9 - 0.05 * s:7.4f}  {turq}memory: {40.12:5.2f}GiB({50.25:.2f}%)  {blue}tps: {23456:,}{reset}"
            )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (100, 1.0, 100.0, 10.95, pytest.approx(6.0))
    assert _series(run, "val_loss") == (2, 50.0, 100.0, 8.4, pytest.approx(5.9))  # "validate step: .. loss: .."
    assert run.series["grad_norm"].values[0] == 1.2345 and run.series["tps"].values[0] == 12345  # "tps: 12,345"


def test_litgpt_finetune(tmp_path):
    """Lightning-AI/litgpt@26857050fe3ff627cd714fe92f5838f51a3d5efa litgpt/finetune/lora.py:395-401 ('Epoch {e} |
    iter {i} step {s} | loss train: {:.3f}, val: {val} | iter time: {:.2f} ms (step)', val 'n/a' before the first
    evaluation) and :419 ('iter {i}: val loss {:.4f}, val time: {:.2f} ms')."""
    lines = []
    for i in range(1, 121):
        val = "n/a" if i <= 50 else f"{1.8 - 0.002 * 50:.3f}"
        step = (i + 1) // 2
        lines.append(
            f"Epoch 1 | iter {i} step {step} | loss train: {2.0 - 0.005 * i:.3f}, val: {val} | iter time: {85.21:.2f} ms"
            + (" (step)" if i % 2 == 0 else "")
        )
        if i % 50 == 0:
            lines.append(f"iter {i}: val loss {1.8 - 0.002 * i:.4f}, val time: {1234.56:.2f} ms")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] in ("loss_train", "train_loss")
    name = run.roles["loss"]
    assert _series(run, name)[0] >= 60 and _series(run, name)[3:] == (1.995, pytest.approx(1.4))


def test_stable_baselines3_table(tmp_path):
    """DLR-RM/stable-baselines3@e05d2dbe6eda0acd0ef2e316e3e4065677add3eb stable_baselines3/common/logger.py:196-243
    (HumanOutputFormat: floats as '{:<8.3g}', a 'tag/' row then the tag's keys indented by 3, '| {key} | {value} |'
    padded to the widest, between lines of dashes)."""

    def table(it):
        rows = {
            "rollout/": "",
            "   ep_len_mean": f"{200:<8}",
            "   ep_rew_mean": f"{-1200.0 + 20 * it:<8.3g}",
            "time/": "",
            "   fps": f"{1234:<8}",
            "   iterations": f"{it:<8}",
            "   time_elapsed": f"{3 * it:<8}",
            "   total_timesteps": f"{2048 * it:<8}",
            "train/": "",
            "   approx_kl": f"{0.0123:<8.3g}",
            "   entropy_loss": f"{-1.4 + 0.01 * it:<8.3g}",
            "   learning_rate": f"{0.0003:<8.3g}",
            "   loss": f"{12.0 - 0.2 * it:<8.3g}",
            "   value_loss": f"{45.0 - it:<8.3g}",
        }
        kw, vw = max(map(len, rows)), max(map(len, rows.values()))
        return (
            ["-" * (kw + vw + 7)]
            + [f"| {k}{' ' * (kw - len(k))} | {v}{' ' * (vw - len(v))} |" for k, v in rows.items()]
            + ["-" * (kw + vw + 7)]
        )

    lines = [line for it in range(2, 32) for line in table(it)]
    run = _read(tmp_path, lines)
    assert run.format == "console/stable-baselines3" and run.roles["loss"] == "train/loss"
    assert _series(run, "train/loss") == (30, 4096.0, 63488.0, 11.6, pytest.approx(5.8))


def test_kohya_sd_scripts_progress_bar(tmp_path):
    """kohya-ss/sd-scripts@48d368fa557731ad0488c07304dfeba8c07910eb train_network.py:1358 (tqdm(desc='steps')) and
    :1514-1516 (set_postfix(avr_loss=moving average)): the bar redrawn with '\\r', its postfix the loss."""
    renders = [
        f"steps: {100 * s // 1000:3d}%|{'█' * (s // 100):<10}| {s}/1000 [00:{s // 20:02d}<10:00,  1.66it/s, avr_loss={0.15 - 0.00005 * s:.4g}]"
        for s in range(10, 1001, 10)
    ]
    path = tmp_path / "train.log"
    path.write_text("\r" + "\r".join(renders) + "\n", encoding="utf-8")
    run = read_run(path)
    assert run.roles["loss"] == "avr_loss"
    assert _series(run, "avr_loss")[0] >= 10 and _series(run, "avr_loss")[3] == pytest.approx(0.1495)


def test_composer_console_logger(tmp_path):
    """mosaicml/composer@6405188805a0054b4551ec49e4919c54c971d0e8 composer/loggers/console_logger.py:205-241
    ('[epoch={e}][batch={b}/{n}]:' then '\\n\\t Train {name}: {value}' per metric)."""
    lines = []
    for e in range(1, 3):
        for b in range(10, 101, 10):
            lines += [
                f"[epoch={e}][batch={b}/100]:",
                f"\t Train time/batch: {(e - 1) * 100 + b}",
                f"\t Train loss/train/total: {3.0 - 0.01 * ((e - 1) * 100 + b):.4f}",
                "\t Train metrics/train/Accuracy: 0.5000",
                f"\t Train lr-DecoupledAdamW/group0: {1e-3}",
            ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss/train/total"
    assert _series(run, "loss/train/total")[0] == 20 and _series(run, "loss/train/total")[3:] == (
        2.9,
        pytest.approx(1.0),
    )


def test_diffusers_training_script_bar(tmp_path):
    """huggingface/diffusers@024c4376fb19caa85275c038f071b6e1446a5cad examples/text_to_image/train_text_to_image.py
    (tqdm(range(max_train_steps), desc='Steps'); per step progress_bar.set_postfix(step_loss=..., lr=...)):
    the bar redrawn with '\\r', its postfix the loss of the last step."""
    renders = [
        f"Steps: {100 * s // 500:3d}%|{'█' * (s // 50):<10}| {s}/500 [00:{s // 10 % 60:02d}<05:00,  1.66it/s, "
        f"lr=0.0001, step_loss={0.2 - 0.0002 * s:.3g}]"
        for s in range(5, 501, 5)
    ]
    path = tmp_path / "train.log"
    path.write_text("\r" + "\r".join(renders) + "\n", encoding="utf-8")
    run = read_run(path)
    assert run.roles["loss"] == "step_loss"
    assert _series(run, "step_loss")[0] >= 10 and _series(run, "step_loss")[3] == pytest.approx(0.199)


def test_clu_logging_writer(tmp_path):
    """google/CommonLoopUtils@04ad2f9edbd5c80f2307746d15a947fea43cb5e5 clu/metric_writers/logging_writer.py
    (write_scalars: '[%d]%s %s' of the step, the collection and '{k}={v:.6g}' sorted, joined by ', '), through
    absl's 'I0101 10:00:00.123456 140000 logging_writer.py:48] ' prefix (Flax and big_vision loops)."""
    lines = []
    for s in range(100, 3100, 100):
        lines.append(
            f"I0101 10:00:00.123456 140000 logging_writer.py:48] [{s}] learning_rate={1e-3:.6g}, "
            f"train_accuracy={0.5 + s / 10000:.6g}, train_loss={2.3 - s / 2000:.6g}"
        )
        if s % 1000 == 0:
            lines.append(
                f"I0101 10:00:00.123456 140000 logging_writer.py:48] [{s}] collection=eval "
                f"eval_accuracy={0.6 + s / 10000:.6g}, eval_loss={2.0 - s / 2000:.6g}"
            )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "eval_loss"
    assert _series(run, "train_loss") == (30, 100.0, 3000.0, 2.25, pytest.approx(0.8))
    assert _series(run, "eval_loss") == (3, 1000.0, 3000.0, 1.5, pytest.approx(0.5))


def test_icefall_zipformer(tmp_path):
    """k2-fsa/icefall@5c142d4c60c9b14f9b255df6819f0c72ff5f0645 egs/librispeech/ASR/zipformer/train.py (every
    log_interval: 'Epoch {e}, batch {b}, loss[{loss_info}], tot_loss[{tot_loss}], batch size: {n}, lr: {lr:.2e}, '
    with icefall/utils.py MetricsTracker.__str__: '{k}={v:.4g}, ' per item then 'over {frames} frames. ')."""
    lines = []
    for e in range(1, 4):
        for b in range(0, 1000, 50):
            loss = 0.9 - 0.1 * e - 0.0001 * b
            lines.append(
                f"2024-01-01 10:00:00,000 INFO [train.py:1198] (0/8) Epoch {e}, batch {b}, "
                f"loss[loss={loss:.4g}, simple_loss={loss + 0.1:.4g}, pruned_loss={loss - 0.1:.4g}, ctc_loss={loss:.4g}, "
                f"over 3287.00 frames. ], tot_loss[loss={loss + 0.01:.4g}, simple_loss={loss + 0.11:.4g}, "
                f"pruned_loss={loss - 0.09:.4g}, ctc_loss={loss:.4g}, over 654321.00 frames. ], "
                f"batch size: 57, lr: {4.5e-2:.2e}, "
            )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[0] == 60 and _series(run, "loss")[3:] == (0.8, pytest.approx(0.505))


def test_keras3_verbose_2(tmp_path):
    """keras-team/keras@3422977a5e38fb2f7709aaa9a08e47f0c43d0f60 keras/src/utils/progbar.py (verbose=2: at the
    epoch's end '{n}/{n} - {t}s - {t}ms/step' then ' - {k}: {v:.4f}' per metric) after
    keras/src/callbacks/progbar_logger.py:55's 'Epoch {e}/{n}'."""
    lines = []
    for e in range(1, 13):
        lines.append(f"Epoch {e}/12")
        lines.append(
            f"469/469 - 3s - 6ms/step - accuracy: {0.8 + 0.01 * e:.4f} - loss: {0.6 - 0.04 * e:.4f} - "
            f"val_accuracy: 0.9000 - val_loss: {0.5 - 0.03 * e:.4f}"
        )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, 0.56, pytest.approx(0.12))
    assert _series(run, "val_loss")[3:] == (0.47, pytest.approx(0.14))


def test_pytorch_cifar10_tutorial(tmp_path):
    """pytorch/tutorials@c53e7d4efc0e39e455c531d21ec7db28ba220214 beginner_source/blitz/cifar10_tutorial.py (every
    2000 mini-batches: print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 2000:.3f}'), then 'Finished
    Training'): the loop most hand-written scripts start from."""
    lines = [
        f"[{e + 1}, {i + 1:5d}] loss: {2.2 - 0.3 * e - 0.00002 * i:.3f}"
        for e in range(4)
        for i in range(1999, 12000, 2000)
    ]
    run = _read(tmp_path, lines + ["Finished Training"])
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (24, 2000.0, 48000.0, 2.16, pytest.approx(1.06))


def test_yunjey_pytorch_tutorial_loop(tmp_path):
    """yunjey/pytorch-tutorial@78c6afe681c4ff5095ef13662c02a7e369b1bcbd tutorials/01-basics/feedforward_neural_network/
    main.py ('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}' every 100 steps, then 'Accuracy of the network on the
    10000 test images: {} %'): a loop copied into countless scripts."""
    lines = [
        f"Epoch [{e + 1}/5], Step [{i}/600], Loss: {0.4 - 0.05 * e - 0.0001 * i:.4f}"
        for e in range(5)
        for i in range(100, 601, 100)
    ]
    run = _read(tmp_path, lines + ["Accuracy of the network on the 10000 test images: 97.81 %"])
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (30, 100.0, 3000.0, 0.39, pytest.approx(0.14))


def test_sklearn_mlp_verbose(tmp_path):
    """scikit-learn/scikit-learn@843a8da4429031d25d437ae6d1f749559fa79ac0 sklearn/neural_network/_multilayer_perceptron.py
    (verbose: 'Iteration %d, loss = %.8f' per epoch, 'Validation score: %f' with early stopping)."""
    lines = []
    for it in range(1, 41):
        lines.append(f"Iteration {it}, loss = {0.7 / it**0.5:.8f}")
        lines.append(f"Validation score: {0.9 + it / 1000:f}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss")[:4] == (40, 1.0, 40.0, 0.7)


def paddlerec_lines():
    """PaddlePaddle/PaddleRec@03dedae2c7318d056491a7744f1924dce058c49b tools/trainer.py:32-33 (logging format
    '%(asctime)s - %(levelname)s - %(message)s'), 164-171 (every print_interval batches: 'epoch: {}, batch_id: {}, '
    + '<metric>:{:.6f}, ' per metric + '<var>:<value>,' per printed tensor + ' avg_reader_cost: {:.5f} sec, avg_batch_cost:
    {:.5f} sec, avg_samples: {:.5f}, ips: {:.5f} ins/s') and 190-192 (at the epoch's end: 'epoch: {} done, ' +
    '<metric>: {:.6f},' per metric + ' epoch time: {:.2f} s')."""
    out = []
    for e in range(3):
        for b in range(0, 2000, 500):
            loss = 0.5 - 0.01 * (e * 4 + b // 500)
            out.append(
                f"2022-04-12 17:06:10,849 - INFO - epoch: {e}, batch_id: {b}, AUC:{0.8 + 0.01 * e:.6f}, "
                f"loss:{loss:.6f}, avg_reader_cost: {0.00012:.5f} sec, avg_batch_cost: {0.56:.5f} sec, "
                f"avg_samples: {1024.0:.5f}, ips: {1822.08:.5f} ins/s"
            )
        out.append(
            f"2022-04-12 17:24:35,400 - INFO - epoch: {e} done, AUC: {0.85 + 0.01 * e:.6f}, epoch time: {1105.58:.2f} s"
        )
    return out


def test_paddlerec_trainer(tmp_path):
    run = _read(tmp_path, paddlerec_lines())
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 0.0, 5500.0, 0.5, pytest.approx(0.39))
    assert _series(run, "AUC")[3:] == (0.8, 0.82) and "batch_id" not in run.series


def test_hf_trainer_progress_callback_formatted_floats(tmp_path):
    """transformers' src/transformers/trainer_callback.py, ProgressCallback.on_log in the 5.x line: each float of the
    logs written as f'{v:.4g}' (so the printed dict holds strings) through training_bar.write(str(shallow_logs)), which
    clears the bar, prints the line and redraws the bar;
    PrinterCallback.on_log formats the same way. (huggingface/transformers@55093b758b338fdc7903e778509523d755ae080d,
    the copy stored here, still prints the floats; the formatting is in the later text of the same method.)"""
    lines = []
    for s in range(10, 410, 10):
        bar = f"  {s * 100 // 400}%|▏         | {s}/400 [00:{s % 60:02d}<01:00,  1.64s/it]"
        logs = {
            "loss": 1.5618 - 0.002 * s,
            "grad_norm": 1.2043813467025757,
            "learning_rate": 9.98e-05,
            "epoch": s / 400,
        }
        lines += [bar, str({k: f"{v:.4g}" for k, v in logs.items()}), bar]  # tqdm.write: the bar redrawn after
    run = _read(tmp_path, lines)
    assert run.format == "console/hf-trainer" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 10.0, 400.0, pytest.approx(1.542), pytest.approx(0.7618))


def test_verl_local_logger_under_ray(tmp_path):
    """volcengine/verl@6f8f46e17a8aaab4743b3ae6dc6410c93cdd1e9e verl/utils/logger/aggregate_logger.py:26-32
    (concat_dict_to_str: 'step:{step}' then '{k}:{v:.3f}' for each number, joined by ' - ') and 45-47
    (LocalLogger.log prints it); Ray puts '(main_task pid=N)' in front of a remote task's output, coloured."""
    lines = [
        f"\x1b[36m(main_task pid=2105103)\x1b[0m step:{s} - actor/entropy_loss:{0.9 - 0.005 * s:.3f} - "
        f"actor/pg_loss:{-0.01 + 0.001 * (s % 3):.3f} - actor/ppo_kl:{0.0001 * s:.3f} - actor/grad_norm:{0.234:.3f} - "
        f"critic/score/mean:{0.1 + 0.01 * s:.3f} - response_length/mean:{312.5:.3f} - timing_s/gen:{12.345:.3f}"
        for s in range(1, 41)
    ]
    run = _read(tmp_path, lines)
    assert run.format.startswith("console/") and not any("pid" in name for name in run.series)
    assert _series(run, "actor/pg_loss") == (40, 1.0, 40.0, -0.009, -0.009)
    assert _series(run, "critic/score/mean")[3:] == (0.11, 0.5)
    assert run.roles["grad_norm"] == "actor/grad_norm"


def test_verl_numpy_reprs_and_many_metrics(tmp_path):
    """volcengine/verl@18c6ffcf08ea2196a1d4ef0800d7a952c52f84db verl/utils/logger/aggregate_logger.py:27-32
    (concat_dict_to_str: 'step:{step}', then '{k}:{pprint.pformat(v)}' for each number, joined by ' - ') and
    :52 (LocalLogger.log prints it). Under NumPy 2 pformat of a numpy scalar is its repr, 'np.float64(x)';
    a GRPO step logs 50 to 90 metrics, the loss among the first (GRPO's pg_loss: 0 at the start)."""

    def np_repr(v: float) -> str:
        return f"np.float64({v!r})"

    timing = " - ".join(f"timing_s/stage_{k}:{1.5 + k!r}" for k in range(50))
    lines = [
        f"\x1b[36m(TaskRunner pid=46086)\x1b[0m step:{s} - actor/entropy:{0.15 + 0.001 * s!r} - "
        f"actor/pg_clipfrac:{np_repr(0.0)} - actor/ppo_kl:{np_repr(0.0)} - "
        f"actor/pg_loss:{np_repr(0.0 if s == 1 else round(-1e-4 * s, 6))} - actor/grad_norm:{np_repr(0.25)} - "
        f"critic/score/mean:{round(0.1 + 0.01 * s, 4)!r} - response_length/mean:{np_repr(312.5)} - {timing}"
        for s in range(1, 41)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "actor/pg_loss"
    assert _series(run, "actor/pg_loss") == (40, 1.0, 40.0, 0.0, -0.004)
    assert _series(run, "critic/score/mean")[3:] == (0.11, 0.5)
    assert run.series["response_length/mean"].values[-1] == 312.5 and "timing_s/stage_49" in run.series
    assert not any("float64" in name or "pid" in name for name in run.series)


def test_hf_dicts_in_a_wandb_output_log_sit_at_their_epochs(tmp_path):
    """W&B's files/output.log keeps a tqdm bar's last render only (wandb/sdk/lib/redirect.py emulates the
    terminal: each '\\r' redraw replaces the line), so the Trainer's dicts (transformers' ProgressCallback.on_log,
    str(logs)) follow a bar that tells no step: they sit at their own 'epoch', and the bar's 1954 steps are
    no plan on that axis (tsebaka/T-Lab-2024-LLM-Alignment@2db9cd05f03eda9e6727a2877cf64854ba97f622,
    a run stopped at 42%: 'run stopped at 0.41 of 1954 planned steps' mixed the two)."""
    lines = ["  0%|          | 0/1954 [00:00<?, ?it/s]", "Could not estimate the number of tokens of the input"]
    lines += [" 42%|████▏     | 821/1954 [20:51<28:46,  1.52s/it]"]
    for k in range(1, 28):
        lines.append(
            str({"loss": round(0.69 - 0.025 * k, 4), "grad_norm": 0.5, "learning_rate": 1e-6, "epoch": k * 0.015})
        )
    run = _read(tmp_path, lines, "output.log")
    assert run.format == "console/hf-trainer" and run.meta["steps_are"] == "epochs"
    assert _series(run, "loss") == (27, 0.015, pytest.approx(0.405), 0.665, pytest.approx(0.015))
    assert "max_steps" not in run.meta


def test_mlx_lm_lora_train_and_val_lines(tmp_path):
    """mlx-lm's LoRA trainer (mlx_lm/tuner/trainer.py) as a user's run printed it
    (Arjun-254/Medical_Question_Answering_SLM@3ea854e5c9343a289b24d8297fc9aa4ca7b1b791 training_output.txt):
    'Iter N: Train loss X, Learning Rate .., It/sec .., Tokens/sec .., Trained Tokens .., Peak mem .. GB' and,
    every 200 iterations, 'Iter N: Val loss Y, Val took ..s'. The validation loss is not a training point."""
    lines = []
    for it in range(10, 610, 10):
        if it % 200 == 0 or it == 10:
            lines.append(
                f"Iter {max(it - 9, 1) if it == 10 else it}: Val loss {2.247 - 0.001 * it:.3f}, Val took 4.935s"
            )
        lines.append(
            f"Iter {it}: Train loss {2.416 - 0.001 * it:.3f}, Learning Rate 1.000e-05, It/sec 3.374, "
            f"Tokens/sec 875.431, Trained Tokens {260 * it}, Peak mem 5.258 GB"
        )
    run = _read(tmp_path, lines, "training_output.txt")
    assert run.roles["loss"] == "Train_loss"
    assert _series(run, "Train_loss") == (60, 10.0, 600.0, pytest.approx(2.406), pytest.approx(1.816))
    assert _series(run, "Val_loss") == (4, 1.0, 600.0, pytest.approx(2.237), pytest.approx(1.647))
    assert run.roles["eval_loss"] == "Val_loss"


def test_verl_step_lines_with_their_validation_metrics_merged_in(tmp_path):
    """verl's trainer (verl/trainer/ppo/ray_trainer.py fit: at each test_freq step the validation
    metrics, val-core/<data source>/<var>/<metric>, join that step's training metrics in one logger.log
    call) prints one longer 'step:N - ...' line every 10 steps; W&B's files/output.log keeps the first
    4096 characters of a line, so that line lost its last training names (as in
    jianghoucheng/Agent_On_Policy_Distillation@5ce4586b3da5e20c82e0fa2c80f3db11f28fb7d9
    wandb/run-20251129_221801-i80f2v90/files/output.log). It is still the step's training record."""
    train = [
        "actor/entropy",
        "actor/pg_loss",
        "actor/grad_norm",
        "critic/score/mean",
        "response_length/mean",
        "timing_s/gen",
        "timing_s/update_actor",
        "perf/throughput",
    ]
    val = ["val-core/aime_2024/acc/mean@30"] + [
        f"val-aux/aime_2024/score/{m}@{k}/mean" for m in ("best", "worst") for k in (2, 4, 8)
    ]
    lines = []
    for s in range(1, 41):
        values = {n: round(0.5 + 0.001 * s + 0.01 * k, 6) for k, n in enumerate(train)}
        values["actor/pg_loss"] = round(0.03 - 0.0005 * s, 6)
        names = train if s % 10 else train[:4] + val  # the merged line, cut after the validation names
        lines.append(f"step:{s} - " + " - ".join(f"{n}:np.float64({values.get(n, 0.2)!r})" for n in names))
    run = _read(tmp_path, lines, "output.log")
    assert run.roles["loss"] == "actor/pg_loss"
    assert _series(run, "actor/pg_loss") == (40, 1.0, 40.0, 0.0295, pytest.approx(0.01))
    assert _series(run, "val-core/aime_2024/acc/mean@30") == (4, 10.0, 40.0, 0.2, 0.2)
    assert not any(name.startswith("eval_") for name in run.series)


def verl_ppo_lines(n=30):
    """verl's PPO console (actor and critic), the shape of verl's quickstart log as a user ran it
    (Bihan/dstack-configs@136d6ade6f904d3096ed5b393128e8c25b2b39b2 verl_demo.log: '(TaskRunner pid=N) step:N - ...');
    the names from verl's workers (verl/workers/actor/dp_actor.py: actor/entropy_loss, actor/pg_loss,
    actor/pg_clipfrac, actor/ppo_kl; verl/workers/critic/dp_critic.py: critic/vf_loss, critic/vf_clipfrac;
    verl/workers/fsdp_workers.py: actor/lr, critic/lr), each value written '{v:.3f}' by
    verl/utils/logger/aggregate_logger.py concat_dict_to_str, so an LR of 1e-6 prints as 0.000."""
    return [
        f"\x1b[36m(TaskRunner pid=14640)\x1b[0m step:{s} - actor/entropy_loss:{0.5 - 0.01 * s:.3f} - "
        f"critic/vf_loss:{0.05 + 0.001 * (s % 4):.3f} - critic/vf_clipfrac:0.000 - critic/grad_norm:19.522 - "
        f"critic/lr:{1e-5:.3f} - actor/pg_loss:{0.02 * (-1) ** s:.3f} - actor/pg_clipfrac:0.002 - "
        f"actor/ppo_kl:0.002 - actor/grad_norm:2.037 - actor/lr:{1e-6:.3f} - critic/score/mean:{0.9 + 0.001 * s:.3f}"
        for s in range(101, 101 + n)
    ]


def test_verl_ppo_takes_the_policy_loss(tmp_path):
    """The policy loss is the run's loss: not summed with the entropy term nor with the critic's
    vf_loss (another model's loss); an LR printed as 0.000 at every step is no LR reading."""
    run = _read(tmp_path, verl_ppo_lines())
    assert run.roles["loss"] == "actor/pg_loss"
    assert _series(run, "actor/pg_loss") == (30, 101.0, 130.0, -0.02, 0.02)
    assert _series(run, "critic/vf_loss")[3:] == (0.051, 0.052)
    assert "actor/lr" not in run.series and "critic/lr" not in run.series
    assert "learning_rate" not in run.roles


def test_fixed_decimal_zero_lr_only(tmp_path):
    """A true zero (Python writes 0.0) and a non-zero LR stay read; only a fixed-decimal zero goes."""
    lines = [
        f"step {s} | loss: {2.0 - 0.01 * s:.4f} | lr: {0.0 if s < 3 else 1e-3} | head/lr: 0.0000" for s in range(20)
    ]
    run = _read(tmp_path, lines)
    assert _series(run, "lr")[3:] == (0.0, 1e-3)
    assert "head/lr" not in run.series and run.roles["loss"] == "loss"
    plain = _read(tmp_path, [f"step={s} loss={2.0 - 0.01 * s:.4f} lr=0.000 lr_head=0.000" for s in range(20)], "p.log")
    assert "lr" not in plain.series and _series(plain, "lr_head")[3:] == (0.0, 0.0)


def test_tqdm_description_carries_the_loss(tmp_path):
    """tqdm/tqdm@f6a30fab726ab8e794a9db88b4392ce207760937 tqdm/std.py:585 (l_bar: the description, then ': '),
    :589 (r_bar '| {n_fmt}/{total_fmt} [{elapsed_str}<{remaining_str}, {rate_fmt}{postfix}]'), :615 (l_bar
    += '{percentage:3.0f}%|'); a hand-written loop calling pbar.set_description(f'Loss: {loss:.4f} | Acc:
    {acc:.2f} | Speed: {v:.1f} steps/s | GPU: {used:.1f}/{total:.1f}GB') every 10 steps, every update redrawn
    with a carriage return: each description is one value, however often it is redrawn."""
    desc, renders = "Training", []
    for n in range(201):
        if n and n % 10 == 0:
            desc = f"Loss: {0.7 - 0.001 * n:.4f} | Acc: 0.50 | Speed: 0.2 steps/s | GPU: 6.4/8.8GB"
        renders.append(
            f"{desc}: {n * 100 // 200:3d}%|{'█' * (n * 10 // 200):<10}| {n}/200 [00:{n:03d}<00:10,  6.25s/it]"
        )
    path = tmp_path / "dpo_full.log"
    path.write_text("config: a\n" + "\r".join(renders) + "\n", encoding="utf-8")
    run = read_run(path)
    assert run.roles["loss"] == "Loss"
    assert _series(run, "Loss") == (20, 10.0, 200.0, 0.69, 0.5)
    assert _series(run, "Acc")[0] == 20 and not {"Speed", "GPU", "Training"} & set(run.series)


def test_notebook_table_of_a_grpo_run_saved_as_text(tmp_path):
    """huggingface/transformers@00e12e7c54598e50e7bef1540db3408f81916de1 src/transformers/utils/notebook.py
    NotebookProgressCallback.on_train_begin (columns [first_column, 'Training Loss'], first_column 'Step') and
    NotebookTrainingTracker.write_line (a row per log; the first row may add columns: TRL GRPO's reward,
    reward_std, completion_length, kl): the table unsloth's and TRL's GRPO notebooks show, saved as text
    (tab-separated), drawn again as it grows; GRPO's loss is 0 for its first steps."""
    head = "Step\tTraining Loss\treward\treward_std\tcompletion_length\tkl"

    def row(s: int) -> str:
        return f"{s}\t{0.0 if s <= 10 else 0.0001 * s:.6f}\t{0.1 + 0.01 * s:.6f}\t0.250000\t200.500000\t{0.001 * s:.6f}"

    lines = [
        "==((====))==  Unsloth - 2x faster free finetuning | Num GPUs used = 1",
        " [20/40 10:00 < 10:00, Epoch 0/1]",
    ]
    lines += (
        [head] + [row(s) for s in range(1, 21)] + [" [40/40 20:00, Epoch 1/1]", head] + [row(s) for s in range(1, 41)]
    )
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "Training Loss"
    assert _series(run, "Training Loss") == (40, 1.0, 40.0, 0.0, 0.004)
    assert _series(run, "reward")[3:] == (0.11, 0.5) and run.series["kl"].values[-1] == 0.04


def test_notebook_table_with_evaluation_as_markdown(tmp_path):
    """The same callback with an evaluation strategy (transformers@00e12e7c54598e50e7bef1540db3408f81916de1
    src/transformers/utils/notebook.py NotebookProgressCallback.on_train_begin: 'Validation Loss' column;
    on_evaluate: 'No log' before the first training loss, other metrics capitalised), pasted as Markdown."""
    lines = ["| Epoch | Training Loss | Validation Loss | Accuracy |", "|---|---|---|---|"]
    for e in range(1, 13):
        lines.append(
            f"| {e} | {'No log' if e == 1 else f'{1.0 - 0.05 * e:.4f}'} | {1.1 - 0.04 * e:.4f} | {0.5 + 0.02 * e:.4f} |"
        )
    run = _read(tmp_path, lines, "README.txt")
    assert run.roles["loss"] == "Training Loss" and run.roles["eval_loss"] == "Validation Loss"
    assert _series(run, "Training Loss") == (11, 2.0, 12.0, 0.9, 0.4)
    assert _series(run, "Validation Loss")[0] == 12 and run.series["Accuracy"].values[-1] == 0.74


def test_a_step_table_of_junk_is_never_a_run(tmp_path):
    """A header naming a loss over rows that do not fit it (a config table, prose) reads nothing."""
    lines = ["Step  Training Loss  Notes", "1  fast  warm-up", "2 0.5", "a b c", "Step\tLoss", "x\t0.1"] * 5
    with pytest.raises(Exception, match="no known training-progress lines|not a training log"):
        _read(tmp_path, lines, "notes.txt")


def test_trainer_dicts_behind_a_logging_frame(tmp_path):
    """A script that routes the Trainer's logs through Python logging (an on_log callback calling
    logger.info(logs) under the format '%(asctime)s - %(levelname)s - %(name)s - %(message)s'): the dict,
    TRL GRPO's metrics among it, behind the frame."""
    lines = [f"2025-03-01 10:00:{s:02d},123 - INFO - __main__ - {_grpo_dict(s)}" for s in range(1, 41)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 1.0, 40.0, 0.0, 0.0025)


def test_ms_swift_dicts_carry_their_step(tmp_path):
    """modelscope/ms-swift@018a5488429212aefb166122ec2ab49888a1d724 swift/trainers/callback.py
    ProgressCallbackNew.on_log (adds 'global_step/max_steps': f'{state.global_step}/{state.max_steps}',
    'percentage', 'elapsed_time', 'remaining_time' to the logs it prints): the step is the dict's own."""
    lines = []
    for s in range(1, 41):
        d = {**_grpo_dict(s), "global_step/max_steps": f"{5 * s}/200", "percentage": f"{2.5 * s:.2f}%"}
        lines.append(f"[INFO:swift] {d | {'elapsed_time': '1m 2s', 'remaining_time': '9m 8s'}}")
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 5.0, 200.0, 0.0, 0.0025)
    assert not any("global_step" in n or n == "_step" for n in run.series)


def test_a_config_dict_behind_a_frame_is_never_a_run(tmp_path):
    """A dict printed behind a logging frame that is a configuration, not a log of training: no loss is read."""
    lines = ["2025-03-01 10:00:00 - INFO - args: {'learning_rate': 0.001, 'loss': 'cross_entropy', 'epochs': 3}"]
    lines += [f"2025-03-01 10:00:0{i} - INFO - loading shard {i}" for i in range(5)]
    with pytest.raises(Exception, match="no known training-progress lines|not a training log"):
        _read(tmp_path, lines)


def pix2pix_loss_log():
    """junyanz/pytorch-CycleGAN-and-pix2pix@003efc4c8819de47ff11b5a0af7ba09aee7f5fc1 util/visualizer.py:
    Visualizer.__init__ appends '================ Training Loss (%s) ================\\n' % time.strftime("%c")
    at every launch; print_current_losses writes '(epoch: %d, iters: %d, time: %.3f, data: %.3f) ' then
    '%s: %.3f ' per loss (iters: the images seen in this epoch); CycleGAN's loss_names (models/cycle_gan_model.py)
    are D_A G_A cycle_A idt_A D_B G_B cycle_B idt_B, and backward_G's loss_G adds the G_, cycle_ and idt_ terms.
    Two epochs of 400 images, then a second launch into the same file, back at epoch 1."""
    out = ["================ Training Loss (Thu Jun 10 10:27:46 2021) ================"]
    k = 0
    for launch in range(2):
        if launch:
            out.append("================ Training Loss (Fri Jun 11 21:04:24 2021) ================")
        for e in (1, 2) if not launch else (1,):
            for i in (100, 200, 300, 400):
                g = 1.0 - 0.01 * k
                k += 1
                terms = {
                    "D_A": 0.25,
                    "G_A": g,
                    "cycle_A": 2 * g,
                    "idt_A": g / 2,
                    "D_B": 0.2,
                    "G_B": g,
                    "cycle_B": 2 * g,
                    "idt_B": g / 2,
                }
                out.append(
                    f"(epoch: {e}, iters: {i}, time: 0.857, data: 2.929) "
                    + "".join(f"{n}: {v:.3f} " for n, v in terms.items())
                )
    return out


def test_pix2pix_family_loss_log(tmp_path):
    run = _read(tmp_path, pix2pix_loss_log(), "loss_log.txt")  # a .txt: read by what it holds
    assert run.format == "console/pix2pix-loss-log" and run.meta["launches"] == 2
    assert run.roles["loss"] == "loss_G" and "discriminator" not in run.roles["loss"]
    assert _series(run, "loss_G") == (12, 100.0, 400.0, pytest.approx(7.0), pytest.approx(7.0 * 0.89))
    assert run.series["loss_G"].steps.tolist()[:9] == [100, 200, 300, 400, 500, 600, 700, 800, 100]
    assert run.series["loss_D"].values[0] == pytest.approx(0.45) and run.series["G_A"].values[-1] == pytest.approx(0.89)
    assert run.meta["step_resets"] == [{"from": 800.0, "to": 100.0}]


def m3d_vton_mtm_loss_log():
    """fyviezhao/M3D-VTON@1ecc3cf46b6c4ee89055aa8c96a8cc0c71c7ce66 models/MTM_model.py: loss_names 'mtm', 'fdepth',
    'bdepth', 'segmt', 'warp'; backward() adds loss_warp, loss_fdepth + loss_bdepth and loss_segmt into loss_mtm,
    the loss it calls backward() on; printed by the pix2pix visualizer ('%s: %.3f ' per name). 30 prints of 100."""
    out = []
    for k in range(30):
        parts = {
            "fdepth": 0.009 - 0.0002 * k,
            "bdepth": 0.010 - 0.0002 * k,
            "segmt": 0.042 - 0.001 * k,
            "warp": 0.084 - 0.002 * k,
        }
        shown = {n: round(v, 3) for n, v in parts.items()}
        line = f"(epoch: {1 + k // 10}, iters: {100 * (1 + k % 10)}, time: 0.106, data: 0.001) mtm: {sum(parts.values()):.3f} "
        out.append(line + "".join(f"{n}: {v:.3f} " for n, v in shown.items()))
    return out


def test_pix2pix_family_objective_printed_beside_its_parts(tmp_path):
    run = _read(tmp_path, m3d_vton_mtm_loss_log(), "loss_log.txt")
    assert run.format == "console/pix2pix-loss-log" and run.roles["loss"] == "loss_G"
    assert _series(run, "loss_G") == (30, 100.0, 3000.0, pytest.approx(0.145), pytest.approx(0.046))
    assert run.series["loss_G"].values.tolist() == run.series["mtm"].values.tolist()  # not mtm + its parts again
    other = [line.replace("mtm: ", "total: ").replace("warp: 0.0", "warp: 0.1") for line in m3d_vton_mtm_loss_log()]
    assert _read(tmp_path, other, "loss_log.txt").series["loss_G"].values[0] > 0.245  # no term sums the rest: all add


def keras_gan_tutorial_lines():
    """The Keras GAN tutorials' per-step prints, as a real log wrote them (keras-cyclegan-loss-txt-1239, calibration):
    CycleGAN '>%d, dA[%.3f,%.3f] dB[%.3f,%.3f] g[%.3f,%.3f]' % (i+1, dA_loss1, dA_loss2, dB_loss1, dB_loss2, g_loss1,
    g_loss2); pix2pix '>%d, d1[%.3f] d2[%.3f] g[%.3f]'; DCGAN '>%d, %d/%d, d1=%.3f, d2=%.3f g=%.3f' (epoch, batch of
    bat_per_epo)."""
    cycle = [
        f">{i}, dA[0.250,0.300] dB[0.200,0.150] g[{20.0 - 0.5 * i:.3f},{21.0 - 0.5 * i:.3f}]" for i in range(1, 21)
    ]
    pix = [f">{i}, d1[0.410] d2[0.380] g[{12.7 - 0.1 * i:.3f}]" for i in range(1, 13)]
    dcgan = [
        f">{e}, {b}/4, d1=0.690, d2=0.700 g={0.9 - 0.01 * (4 * e + b):.3f}" for e in (1, 2, 3) for b in (1, 2, 3, 4)
    ]
    return cycle, pix, dcgan


def test_keras_gan_tutorial_prints(tmp_path):
    cycle, pix, dcgan = keras_gan_tutorial_lines()
    run = _read(tmp_path, cycle, "loss.txt")
    assert run.format == "console/keras-gan" and run.roles["loss"] == "loss_G"
    assert _series(run, "loss_G") == (20, 1.0, 20.0, pytest.approx(40.0), pytest.approx(21.0))
    assert run.series["loss_D"].values[0] == pytest.approx(0.9) and run.series["g_2"].values[-1] == pytest.approx(11.0)
    assert _series(_read(tmp_path, pix), "loss_G") == (12, 1.0, 12.0, pytest.approx(12.6), pytest.approx(11.5))
    assert _series(_read(tmp_path, dcgan), "loss_G") == (12, 1.0, 12.0, pytest.approx(0.85), pytest.approx(0.74))


def darknet_lines():
    """AlexeyAB/darknet@518780b3c3e14362818b156fb736f16340cd8312 src/detector.c (train_detector):
    printf("\\n %d: %f, %f avg loss, %f rate, %lf seconds, %d images, %f hours left\\n", iteration, loss,
    avg_loss, get_current_rate(net), ..., iteration*imgs, avg_time) with avg_loss = avg_loss*.9 + loss*.1, and
    "\\n (next mAP calculation at %d iterations) " / " Last accuracy mAP@0.5 = %2.2f %%, best = %2.2f %% " between;
    pjreddie/darknet's examples/detector.c printed "%ld: %f, %f avg, %f rate, %lf seconds, %d images"."""
    out = [
        "custom-yolov4-tiny-detector",
        " seen 64, trained: 0 K-images (0 Kilo-batches_64) ",
        "Learning Rate: 0.00261, Momentum: 0.9, Decay: 0.0005",
    ]
    avg = -1.0
    for it in range(1, 41):
        loss = 364.0 / it
        avg = loss if avg < 0 else avg * 0.9 + loss * 0.1
        out += [
            "",
            f" {it}: {loss:f}, {avg:f} avg loss, {0.00261 * min(1, it / 20):f} rate, 0.590258 seconds, {it * 48} images, 0.161013 hours left",
        ]
        if it % 10 == 0:
            out += [
                "",
                " (next mAP calculation at 50 iterations) ",
                " Last accuracy mAP@0.5 = 40.34 %, best = 40.34 % ",
            ]
    out += ["41: 8.000000, 9.500000 avg, 0.002610 rate, 0.600000 seconds, 1968 images"]  # the older print
    return out


def test_darknet_detector_training(tmp_path):
    run = _read(tmp_path, darknet_lines(), "log_train.txt")  # a .txt: read by what it holds
    assert run.format == "console/darknet" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (41, 1.0, 41.0, 364.0, 8.0)
    assert run.series["avg_loss"].values[-1] == 9.5 and run.roles["learning_rate"] == "learning_rate"


def vits_train_log(sovits4: bool = False):
    """jaywalnut310/vits@1f75b3b6d1375718b91142168459d6e1641a0b88 train.py (train_and_evaluate):
    every log_interval steps logger.info('Train Epoch: {} [{:.0f}%]'.format(epoch, ...)) and then
    logger.info([x.item() for x in losses] + [global_step, lr]) with losses = [loss_disc, loss_gen,
    loss_fm, loss_mel, loss_dur, loss_kl] (loss_gen_all = the last five summed), '====> Epoch: {}' per
    epoch; utils.get_logger's format '%(asctime)s\\t%(name)s\\t%(levelname)s\\t%(message)s' into
    <model_dir>/train.log. so-vits-svc 4.x's train.py logs f"Losses: {[x.item() for x in losses]},
    step: {global_step}, lr: {lr}, reference_loss: {reference_loss}" with five losses (no loss_dur)."""
    out = ["2022-06-07 13:16:08,943\tljs_base\tINFO\t{'train': {'log_interval': 200, 'epochs': 20000}}"]
    for k in range(12):
        epoch, step = 1 + k // 4, 200 * k
        out.append(f"2022-06-07 13:16:35,612\tljs_base\tINFO\tTrain Epoch: {epoch} [{25 * (k % 4)}%]")
        mel = 40.0 - 2 * k
        if sovits4:
            terms = [2.5, 2.0, 10.0, mel, 1.0]
            out.append(
                f"2022-06-07 13:16:35,613\t44k\tINFO\tLosses: {terms}, step: {step}, lr: 0.0002, reference_loss: {sum(terms)}"
            )
        else:
            out.append(f"2022-06-07 13:16:35,613\tljs_base\tINFO\t{[2.5, 2.0, 10.0, mel, 1.5, 1.0, step, 0.0002]}")
        if k % 4 == 3:
            out.append(f"2022-06-07 13:18:22,025\tljs_base\tINFO\t====> Epoch: {epoch}")
    return out


def test_vits_train_log(tmp_path):
    run = _read(tmp_path, vits_train_log())
    assert run.format == "console/vits-train-log" and run.roles["loss"] == "loss_gen_all"
    assert _series(run, "loss_mel") == (12, 0.0, 2200.0, 40.0, 18.0)
    assert _series(run, "loss_gen_all") == (12, 0.0, 2200.0, 54.5, 32.5)  # all but the discriminator's
    assert _series(run, "loss_dur")[3:] == (1.5, 1.5) and _series(run, "epoch")[3:] == (1.0, 3.0)
    assert run.roles["learning_rate"] == "learning_rate" and run.series["loss_disc"].values[-1] == 2.5


def test_so_vits_svc_4_losses_line(tmp_path):
    run = _read(tmp_path, vits_train_log(sovits4=True))
    assert run.format == "console/vits-train-log" and run.roles["loss"] == "loss_gen_all"
    assert _series(run, "loss_gen_all") == (12, 0.0, 2200.0, 53.0, 31.0) and "loss_dur" not in run.series


def test_vits_lists_of_another_length_or_without_a_header_are_not_guessed(tmp_path):
    lines = [ln for ln in vits_train_log() if "Train Epoch" not in ln]  # bare number lists
    with pytest.raises(ReadError):
        _read(tmp_path, lines)
    odd = [ln.replace("[2.5, 2.0, ", "[") for ln in vits_train_log()]  # four losses: no known train.py
    with pytest.raises(ReadError):
        _read(tmp_path, odd)


def jde_table(header_every_epoch: bool = True) -> list[str]:
    """Zhongdao/Towards-Realtime-MOT@06db3a221c939eebb77dde58e3c1b75b99b8f8a9 train.py:96-97 and 136-141 (the
    print format of ultralytics/yolov3's 2018-19 train.py, which JDE and its forks keep): the header
    ('%8s%12s' + '%10s' * 6) % ('Epoch', 'Batch', 'box', 'conf', 'id', 'total', 'nTargets', 'time') through the
    logger each epoch, then every print_interval batches ('%8s%12s' + '%10.3g' * 6) with '%g/%g' counters
    (epoch of epochs - 1, batch of len(dataloader) - 1); 'total' is the loss (the running mean of rloss['loss']).
    Between epochs the test prints its own table ('%11s' * 5: Image Total P R mAP) with a time cell."""
    out = []
    for e in range(3):
        if header_every_epoch or e == 0:
            out.append(("%8s%12s" + "%10s" * 6) % ("Epoch", "Batch", "box", "conf", "id", "total", "nTargets", "time"))
        for i in range(0, 165, 40):
            total = 9.0 - 0.5 * e - 0.01 * i
            out.append(("%8s%12s" + "%10.3g" * 6) % (f"{e}/2", f"{i}/164", 0.02, 0.01, 4.6, total, 66.8, 0.51))
        out.append(("%11s" * 5) % ("Image", "Total", "P", "R", "mAP"))
        out.append(("%11s" * 3 + "%11.3g" * 2 + "%10.3gs") % ("32", "30353", "0.1", 0.1, 0.1, 2.14))
    return out


def test_jde_yolov3_counter_table(tmp_path):
    run = _read(tmp_path, [f"2021-01-25 05:58:00 [INFO]: {line}" for line in jde_table()], name="log_train.txt")
    assert run.roles["loss"] == "total_loss"  # the table's 'total', named as the loss it is
    # 5 rows an epoch, the step counting batches (165 an epoch): 0 .. 2 * 165 + 160
    assert _series(run, "total_loss") == (15, 0.0, 490.0, 9.0, pytest.approx(6.4))
    assert run.series["conf"].values[0] == pytest.approx(0.01)
    assert "Total" not in run.series and "mAP" not in run.series  # the test's table is not the training's
    assert run.meta.get("steps_are") != "epochs"


def test_a_table_whose_total_is_a_count_is_not_a_loss(tmp_path):
    """'total' without counter cells (a sample count beside the accuracy) is no loss."""
    lines = ["Epoch  correct  total  accuracy"] + [f"{e}  {9000 + e}  10000  {0.9 + e / 1000:.4f}" for e in range(12)]
    with pytest.raises(ReadError):
        _read(tmp_path, lines, name="train.log")


def mxnet_speedometer() -> list[str]:
    """apache/mxnet@ae654ba4c7e2d7890772bdf449b7b00482396b68 python/mxnet/callback.py Speedometer.__call__
    ('Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec' + '\t%s=%f' per metric, every `frequent` batches),
    Module.fit's epoch summaries 'Epoch[%d] Train-%s=%f' and 'Epoch[%d] Time cost=%.3f', through logging's
    '%(asctime)s INFO - %(message)s'; the metrics those of an SSH face detector's log (ZhouKai90/SSH-keypoint
    log/train.log, calibration id ssh-keypoint-mxnet-train-log-1279: per branch an accuracy and two L1 losses)."""
    out = []
    for e in range(5, 8):
        for k, count in enumerate(range(20, 121, 20)):
            vals = []
            for b in range(2):
                vals += [(f"M{b}_RPNAcc", 0.99), (f"M{b}_RPNL1BboxLoss", 0.08 - 0.01 * (e - 5) - 0.001 * k)]
                vals += [(f"M{b}_RPNL1KpointLoss", 0.2 - 0.02 * (e - 5))]
            msg = ("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + "\t%s=%f" * len(vals)) % (
                e,
                count - 20,
                count,
                25.77,
                *sum(vals, ()),
            )
            out.append(f"2018-10-11 09:16:49,200 INFO - {msg}")
        for name, v in vals:
            out.append("2018-10-11 09:20:00,000 INFO - Epoch[%d] Train-%s=%f" % (e, name, v))
        out.append("2018-10-11 09:20:00,000 INFO - Epoch[%d] Time cost=%.3f" % (e, 190.5))
    return out


def test_mxnet_speedometer(tmp_path):
    run = _read(tmp_path, mxnet_speedometer())
    parts = ["M0_RPNL1BboxLoss", "M0_RPNL1KpointLoss", "M1_RPNL1BboxLoss", "M1_RPNL1KpointLoss"]
    assert set(run.roles["loss"].split("+")) == set(parts)  # no total printed: the sum of the loss terms
    # six lines an epoch, the step their order (no batch count per epoch is printed)
    assert _series(run, "M0_RPNL1BboxLoss") == (18, 0.0, 17.0, 0.08, pytest.approx(0.055))
    assert _series(run, "samples_per_sec")[3:] == (25.77, 25.77)
    assert run.series["epoch"].values[0] == 5.0 and run.series["epoch"].values[-1] == 7.0
    assert not any(n.startswith("Train-") for n in run.series)  # the epoch summaries repeat the batch lines


def test_mxnet_validation_after_each_epoch(tmp_path):
    # Module.fit's evaluation of eval_data after each epoch (python/mxnet/module/base_module.py, same commit):
    # 'Epoch[%d] Validation-%s=%f' per metric, after the epoch's 'Time cost' line; at the epoch's last batch line
    lines = []
    for line in mxnet_speedometer():
        lines.append(line)
        if "Time cost" in line:
            e = int(line.split("Epoch[")[1].split("]")[0])
            lines.append("2018-10-11 09:20:05,000 INFO - Epoch[%d] Validation-%s=%f" % (e, "M0_RPNAcc", 0.9 + e / 100))
            lines.append(
                "2018-10-11 09:20:05,000 INFO - Epoch[%d] Validation-%s=%f" % (e, "cross-entropy", 1.0 - e / 10)
            )
    run = _read(tmp_path, lines)
    assert _series(run, "M0_RPNL1BboxLoss") == (18, 0.0, 17.0, 0.08, pytest.approx(0.055))  # as without them
    assert _series(run, "val_M0_RPNAcc") == (3, 5.0, 17.0, pytest.approx(0.95), pytest.approx(0.97))
    # MXNet's cross-entropy metric is read as the loss it is (probe round 13a): its validation, ``val_loss``
    assert _series(run, "val_loss") == (3, 5.0, 17.0, pytest.approx(0.5), pytest.approx(0.3))


def caffe_solver():
    """BVLC/caffe@9b891540183ddc834a02b2bd81b31afae71b2153 src/caffe/solver.cpp:239-241 ('Iteration ' << iter_
    << ' (' << per_s << ' iter/s, ' << lapse << 's/' << display << ' iters), loss = ' << smoothed_loss_),
    :257-259 ('    Train net output #' << i << ': ' << name << ' = ' << v << ' (* w = x loss)'), :345-346
    ('Iteration ' << iter_ << ', Testing net (#' << id << ')'), :414-415 ('    Test net output #' << i << ': '
    << name << ' = ' << mean_score), :327 (Solve's closing 'Iteration N, loss = X'); src/caffe/solvers/
    sgd_solver.cpp:112-113 ('Iteration N, lr = X'); every line behind glog's 'I0224 11:51:38.922637 25595
    solver.cpp:219] ' frame."""
    out = []
    for k, it in enumerate(range(0, 1100, 100)):
        out += [
            f"I0224 11:51:36.653954 25595 solver.cpp:330] Iteration {it}, Testing net (#0)",
            f"I0224 11:51:38.858273 25595 solver.cpp:397]     Test net output #0: accuracy = {0.5 + 0.04 * k:.6g}",
            f"I0224 11:51:38.858311 25595 solver.cpp:397]     Test net output #1: loss = {1.0 - 0.05 * k:.6g} (* 1 = {1.0 - 0.05 * k:.6g} loss)",
            f"I0224 11:51:38.922637 25595 solver.cpp:218] Iteration {it} (11.6727 iter/s, 8.567s/100 iters), loss = {2.0 - 0.1 * k:.6g}",
            f"I0224 11:51:38.922677 25595 solver.cpp:237]     Train net output #0: loss = {2.0 - 0.1 * k:.6g} (* 1 = {2.0 - 0.1 * k:.6g} loss)",
            f"I0224 11:51:38.922686 25595 sgd_solver.cpp:105] Iteration {it}, lr = {0.01 * 0.9**k:.6g}",
        ]
    out.append("I0224 11:58:14.982 25595 solver.cpp:310] Iteration 1100, loss = 0.9")
    return out


def test_caffe_solver(tmp_path):
    # traffic-signs-caffe-chinese-named-log-1360 (calibration): read as one "loss" of twice the points before
    # (the smoothed loss and the Train net output blob printed for each iteration, steps from their order)
    run = _read(tmp_path, caffe_solver(), "训练记录.txt")
    assert run.format == "console/caffe" and run.roles["loss"] == "loss" and run.roles["eval_loss"] == "test_loss"
    assert _series(run, "loss") == (12, 0.0, 1100.0, 2.0, 0.9)
    assert run.series["learning_rate"].values[0] == 0.01 and run.series["test_accuracy"].values[-1] == pytest.approx(
        0.9
    )


def time_series_library_lines(epochs=12):
    """thuml/Time-Series-Library@08cf8d7d57155bb38d2525439c80be103b69cef9 exp/exp_long_term_forecasting.py,
    Exp_Long_Term_Forecast.train: '\\titers: {0}, epoch: {1} | loss: {2:.7f}' and '\\tspeed: {:.4f}s/iter;
    left time: {:.4f}s' every 100 iterations, 'Epoch: {} cost time: {}', then 'Epoch: {0}, Steps: {1} |
    Train Loss: {2:.7f} Vali Loss: {3:.7f} Test Loss: {4:.7f}' (the shape Informer, Autoformer, PatchTST
    and DLinear print too) and utils/tools.py's early-stopping and learning-rate notes. Early stopping
    watches the Vali Loss; the Test Loss is the held-out test split."""
    out = [">>>>>>>start training : long_term_forecast_ETTh1_96_96_DLinear_ETTh1_ftM>>>>>>>>>>", "train 8449"]
    for e in range(1, epochs + 1):
        for i in (100, 200):
            out.append(f"\titers: {i}, epoch: {e} | loss: {0.6 - 0.02 * e - 0.001 * i / 100:.7f}")
            out.append(f"\tspeed: 0.0230s/iter; left time: {58.5988 - e:.4f}s")
        out.append(f"Epoch: {e} cost time: 3.6494240760803223")
        out.append(
            f"Epoch: {e}, Steps: 265 | Train Loss: {0.5 - 0.02 * e:.7f} Vali Loss: {0.9 - 0.01 * e:.7f} "
            f"Test Loss: {0.45 - 0.005 * e:.7f}"
        )
        out.append("Validation loss decreased (0.746559 --> 0.711169).  Saving model ...")
        out.append(f"Updating learning rate to {1e-4 / 2 ** (e - 1)}")
    return out


def test_time_series_library_vali_loss_is_the_eval_loss(tmp_path):
    run = _read(tmp_path, time_series_library_lines())
    assert run.roles["eval_loss"] == "Vali_Loss"  # not the Test Loss, and never the training loss
    # each iteration line read (twice an epoch): the epoch's summary at the step of its last iteration line
    assert _series(run, "loss") == (24, 100.0, 2400.0, pytest.approx(0.579), pytest.approx(0.358))
    assert _series(run, "Vali_Loss") == (12, 200.0, 2400.0, 0.89, pytest.approx(0.78))
    assert _series(run, "Test_Loss")[3:] == (0.445, pytest.approx(0.39))
    # the epoch's mean, printed beside the evaluation: its summary, never the loss series itself
    assert _series(run, "summary_Train_Loss")[3:] == (0.48, pytest.approx(0.26))
    assert run.roles["loss"] == "loss" and run.series["loss"].values[-1] < 0.4


def test_deeplearning4j_score_iteration_listener(tmp_path):
    """deeplearning4j/deeplearning4j deeplearning4j-nn/src/main/java/org/deeplearning4j/optimize/listeners/
    ScoreIterationListener.java iterationDone: log.info("Score at iteration {} is {}", iteration, score), the
    score being the model's loss on the minibatch; under the default logback layout (time, thread, level,
    abbreviated logger)."""
    lines = [
        f"12:00:{i % 60:02d}.123 [main] INFO  o.d.o.l.ScoreIterationListener - Score at iteration {10 * i} is "
        f"{2.302585092994 * 0.97**i!r}"
        for i in range(40)
    ]
    run = _read(tmp_path, ["o.n.l.f.Nd4jBackend - Loaded [CpuBackend] backend", *lines])
    assert run.format == "console/dl4j" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (40, 0.0, 390.0, 2.302585092994, pytest.approx(2.302585092994 * 0.97**39))


def test_tqdm_bar_per_epoch_with_only_its_last_render_kept(tmp_path):
    """tqdm/tqdm tqdm/std.py format_meter ('{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, '
    '{rate_fmt}{postfix}]'), desc=f"Epoch {e}/{n}" and set_postfix(loss=...): a log that kept only each
    epoch's finished bar (copied from a terminal, or written with leave=True to a file by a callback). Each
    is its own bar, one point at its end."""
    lines = [
        f"Epoch {e}/30: 100%|##########| 50/50 [00:04<00:00, 11.2it/s, loss={2.5 * 0.95**e:.4f}]" for e in range(1, 31)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/tqdm-postfix"
    assert _series(run, "loss") == (30, 50.0, 1500.0, 2.375, pytest.approx(2.5 * 0.95**30, abs=1e-4))


def _minutes(s):
    return "%dm %ds" % (s // 60, s % 60)


@pytest.mark.parametrize("remaining", [False, True], ids=["char-rnn-generation", "seq2seq-translation"])
def test_pytorch_tutorials_rnn_loss_without_a_name(tmp_path, remaining):
    """pytorch/tutorials intermediate_source/char_rnn_generation_tutorial.py and
    seq2seq_translation_tutorial.py: print('%s (%d %d%%) %.4f' % (timeSince(start[, percent]), iter,
    iter / n_iters * 100, loss)); timeSince writes '%dm %ds', and with the share done also
    ' (- %dm %ds)' of the time remaining."""
    lines = []
    for k in range(1, 21):
        t = _minutes(7 * k) + (f" (- {_minutes(7 * (20 - k))})" if remaining else "")
        lines.append("%s (%d %d%%) %.4f" % (t, 5000 * k, 5 * k, 3.2 - 0.1 * k))
    run = _read(tmp_path, ["Reading lines...", "Read 135842 sentence pairs", *lines])
    assert run.format == "console/pytorch-tutorial" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 5000.0, 100000.0, 3.1, pytest.approx(1.2))


def test_pytorch_tutorial_name_classification(tmp_path):
    """pytorch/tutorials intermediate_source/char_rnn_classification_tutorial.py: print('%d %d%% (%s) %.4f
    %s / %s %s' % (iter, iter / n_iters * 100, timeSince(start), loss, line, guess, correct)), correct
    being '✓' or '✗ (%s)' % category."""
    names = [("Kostelecky", "Czech", "✓"), ("Nakamura", "Japanese", "✓"), ("Adam", "Irish", "✗ (French)")]
    lines = [
        "%d %d%% (%s) %.4f %s / %s %s" % (5000 * k, 5 * k, _minutes(4 * k), 2.9 - 0.1 * k, *names[k % 3])
        for k in range(1, 21)
    ]
    run = _read(tmp_path, lines)
    assert run.format == "console/pytorch-tutorial" and run.roles["loss"] == "loss"
    assert _series(run, "loss") == (20, 5000.0, 100000.0, 2.8, pytest.approx(0.9))


def _boost(i):
    return 0.69 * 0.95**i + 0.05


def xgboost_lines(sets=("train", "validation"), metrics=("logloss",), rounds=40):
    """dmlc/xgboost@379b29f0836b9dbc313b993d8e5743bd452d4117 python-package/xgboost/callback.py:546-570
    (EvaluationMonitor: f"[{epoch}]", then per set and metric f"\\t{data + '-' + metric}:{score:.5f}",
    f"...:{score:.5f}+{std:.5f}" in xgb.cv); src/learner.cc:1100,1118 (the C++ core: '[' << iter << ']',
    '\\t' << data_names[i] << '-' << ev->Name() << ':' << value); the scikit-learn wrapper names its
    eval_set's sets f"validation_{i}" (python-package/xgboost/sklearn.py:840)."""
    out = []
    for r in range(rounds):
        cells = "".join(
            f"\t{s}-{k}:{_boost(r) + 0.02 * j + (0.3 if k in ('merror', 'error') else 0.0):.5f}"
            for j, s in enumerate(sets)
            for k in metrics
        )
        out.append(f"[{r}]{cells}")
    return out


def test_xgboost_train_and_validation_sets(tmp_path):
    run = _read(tmp_path, xgboost_lines())
    assert run.format == "console/xgboost"
    assert run.roles["loss"] == "train-logloss" and run.roles["eval_loss"] == "validation-logloss"
    assert _series(run, "train-logloss") == (40, 0.0, 39.0, 0.74, pytest.approx(_boost(39), abs=1e-5))
    assert _series(run, "validation-logloss")[3] == 0.76
    assert any("'logloss' on the training set 'train'" in n for n in run.notes)


def test_xgboost_loss_is_the_loss_metric_not_the_error_rate(tmp_path):
    lines = xgboost_lines(sets=("train", "eval"), metrics=("merror", "mlogloss"))
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train-mlogloss" and run.roles["eval_loss"] == "eval-mlogloss"
    assert run.series["train-merror"].values[0] == pytest.approx(1.04)
    rmse = _read(tmp_path, xgboost_lines(sets=("train", "test"), metrics=("rmse", "mae")), "rmse.log")
    assert rmse.roles["loss"] == "train-rmse" and rmse.roles["eval_loss"] == "test-rmse"
    assert any("first of its loss metrics (rmse, mae)" in n for n in rmse.notes)


def test_xgboost_validation_set_alone_is_an_evaluation_loss(tmp_path):
    """XGBClassifier.fit(eval_set=[(X_val, y_val)]): no training set is printed. Its logloss is an
    evaluation loss; being the only loss, it is the one judged, and the note says so."""
    run = _read(tmp_path, xgboost_lines(sets=("validation_0",)))
    assert run.roles == {"loss": "validation_0-logloss"}
    assert any("no training set is printed, so this is an evaluation loss" in n for n in run.notes)


def test_xgboost_several_unnamed_sets_take_no_loss(tmp_path):
    """eval_set=[(X_train, y_train), (X_test, y_test)] prints validation_0 and validation_1: which is
    the training data is not said, and no loss is taken (precision over recall)."""
    run = _read(tmp_path, xgboost_lines(sets=("validation_0", "validation_1")))
    assert len(run.series["validation_1-logloss"]) == 40
    assert "loss" not in run.roles and "eval_loss" not in run.roles
    assert any(n.startswith("no loss taken: xgboost evaluates validation_0, validation_1") for n in run.notes)


def lightgbm_lines(sets=("training", "valid_1"), metric="binary_logloss", rounds=40):
    """microsoft/LightGBM@bae0b7ba953341a32b2a9c5c5c437a1b976f576f python-package/lightgbm/callback.py:85
    (f"{dataset_name}'s {metric_name}: {metric_value:g}", f" + {stdv:g}" in cv) and :105-106 (the results
    joined by '\\t' after f"[{env.iteration + 1}]"); engine.py:247 (the training set's name "training");
    the C++ library's info lines ('[LightGBM] [Info] ...', include/LightGBM/utils/log.h:149)."""
    out = ["[LightGBM] [Info] Number of positive: 3000, number of negative: 3000",
           "[LightGBM] [Info] Total Bins 1530",
           "[LightGBM] [Warning] No further splits with positive gain, best gain: -inf"]  # fmt: skip
    for r in range(1, rounds + 1):
        out.append(f"[{r}]\t" + "\t".join(f"{s}'s {metric}: {_boost(r) + 0.02 * j:g}" for j, s in enumerate(sets)))
    return out


def test_lightgbm_training_and_valid_sets(tmp_path):
    run = _read(tmp_path, lightgbm_lines())
    assert run.format == "console/lightgbm"
    assert run.roles["loss"] == "training/binary_logloss" and run.roles["eval_loss"] == "valid_1/binary_logloss"
    assert _series(run, "training/binary_logloss") == (
        40,
        1.0,
        40.0,
        pytest.approx(0.7055),
        0.138673,
    )
    l2 = _read(tmp_path, lightgbm_lines(metric="l2"), "l2.log")
    assert l2.roles["loss"] == "training/l2" and l2.roles["eval_loss"] == "valid_1/l2"


def test_lightgbm_auc_alone_is_no_loss(tmp_path):
    run = _read(tmp_path, lightgbm_lines(metric="auc"))
    assert len(run.series["training/auc"]) == 40 and "loss" not in run.roles
    assert any("no loss metric printed on the training set 'training' (auc)" in n for n in run.notes)


def test_lightgbm_cli_iteration_lines(tmp_path):
    """src/boosting/gbdt.cpp:573-575, 591-593 (GBDT::OutputMetric): "Iteration:" << iter << ", training "
    << name << " : " << score, and ", valid_" << i + 1 << " " << name << " : " << score, through Log::Info."""
    lines = []
    for r in range(1, 31):
        lines += [f"[LightGBM] [Info] Iteration:{r}, training l2 : {_boost(r):g}",
                  f"[LightGBM] [Info] Iteration:{r}, valid_1 l2 : {_boost(r) + 0.02:g}"]  # fmt: skip
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "training/l2" and run.roles["eval_loss"] == "valid_1/l2"
    assert _series(run, "valid_1/l2")[:3] == (30, 1.0, 30.0)


def catboost_lines(test=True, auc=False, rounds=40):
    """catboost/catboost@0ffde07caa6311e41d8482e326ad6c8f079ddb19 catboost/libs/loggers/logger.h
    (TConsoleLoggingBackend: the main metric of each set, "\\t" << source << ": " << value with 7
    significant digits, and for the test set "\\tbest: " << best << " (" << bestIteration << ")"; then
    "\\ttotal: " and "\\tremaining: " in HumanReadable durations; Flush writes currentIteration << ":"
    before them). A test metric that rises (AUC) keeps its highest as best."""
    out = ["Learning rate set to 0.061"]
    best = None
    for r in range(rounds):
        cells = f"{r}:\tlearn: {_boost(r):.7g}"
        if test:
            v = 0.6 + 0.008 * r if auc else _boost(r) + 0.02
            best = v if best is None else (max(best, v) if auc else min(best, v))
            cells += f"\ttest: {v:.7g}\tbest: {best:.7g} ({r})"
        out.append(cells + f"\ttotal: {5 * r + 5}ms\tremaining: {1.5 - 0.03 * r:.2f}s")
    return out + ["", "bestTest = 0.2", "bestIteration = 39"]


def test_catboost_learn_and_test(tmp_path):
    run = _read(tmp_path, catboost_lines())
    assert run.format == "console/catboost"
    assert run.roles["loss"] == "learn" and run.roles["eval_loss"] == "test"
    assert _series(run, "learn") == (40, 0.0, 39.0, 0.74, pytest.approx(_boost(39), abs=1e-6))
    assert _series(run, "test")[3] == 0.76
    alone = _read(tmp_path, catboost_lines(test=False), "learn.log")
    assert alone.roles == {"loss": "learn"} and list(alone.series) == ["learn"]


def test_catboost_test_metric_that_rises_is_no_eval_loss(tmp_path):
    """eval_metric='AUC': the test column is an AUC (its best is its highest), never the eval loss."""
    run = _read(tmp_path, catboost_lines(auc=True))
    assert run.roles["loss"] == "learn" and "eval_loss" not in run.roles
    assert run.series["test"].values[-1] == pytest.approx(0.912)


def sb3_table(values: dict) -> list[str]:
    """One table as Stable-Baselines3's HumanOutputFormat.write prints it (DLR-RM/stable-baselines3@
    e05d2dbe6eda0acd0ef2e316e3e4065677add3eb stable_baselines3/common/logger.py:199 floats f"{value:<8.3g}",
    :204 the tag row of each 'tag/', keys indented by 3 under it, :227 dashes of key_width + val_width + 7,
    :232 f"| {key}{key_space} | {value}{val_space} |"), keys sorted."""
    rows, tag = [], None
    for key in sorted(values):
        t, _, k = key.partition("/")
        if t != tag:
            rows.append((t + "/", ""))
            tag = t
        v = values[key]
        rows.append(("   " + k, f"{v:<8.3g}" if isinstance(v, float) else str(v)))
    kw, vw = max(len(k) for k, _ in rows), max(len(v) for _, v in rows)
    dashes = "-" * (kw + vw + 7)
    return [dashes, *(f"| {k}{' ' * (kw - len(k))} | {v}{' ' * (vw - len(v))} |" for k, v in rows), dashes]


def sb3_lines(train: dict, tables=20, n_steps=2048) -> list[str]:
    """PPO's first table has no train/ values (on_policy_algorithm.py:289-295 rollout/ and time/ values;
    ppo.py:287-298 train/ after the first update); A2C logs train/policy_loss and train/value_loss apart
    (a2c.py:184-188), SAC train/actor_loss and train/critic_loss (sac.py:297-302)."""
    out = ["Using cpu device", "Wrapping the env with a `Monitor` wrapper"]
    for i in range(1, tables + 1):
        vals = {"rollout/ep_len_mean": 20.0 + i, "rollout/ep_rew_mean": 20.0 + i, "time/fps": 1234,
                "time/iterations": i, "time/time_elapsed": i, "time/total_timesteps": i * n_steps}  # fmt: skip
        if i > 1:
            vals.update({k: f(i) for k, f in train.items()})
        out += sb3_table(vals)
    return out


def test_stable_baselines3_ppo_tables(tmp_path):
    ppo = {"train/loss": lambda i: 8.0 / i, "train/value_loss": lambda i: 30.0 / i,
           "train/policy_gradient_loss": lambda i: -0.01, "train/entropy_loss": lambda i: -0.69,
           "train/learning_rate": lambda i: 3e-4, "train/n_updates": lambda i: 10 * i}  # fmt: skip
    run = _read(tmp_path, sb3_lines(ppo))
    assert run.format == "console/stable-baselines3"
    assert run.roles["loss"] == "train/loss"
    assert _series(run, "train/loss") == (19, 4096.0, 40960.0, 4.0, 0.4)
    assert _series(run, "rollout/ep_rew_mean") == (20, 2048.0, 40960.0, 21.0, 40.0)
    assert run.series["train/learning_rate"].values[0] == 3e-4


def test_stable_baselines3_parts_losses_are_no_loss(tmp_path):
    """A2C and SAC log their parts' losses and no train/loss: the value (critic) loss is another
    network's or another term's, never the model's loss (on main the general reader took it)."""
    a2c = {"train/policy_loss": lambda i: -0.5 / i, "train/value_loss": lambda i: 30.0 / i,
           "train/entropy_loss": lambda i: -0.69, "train/n_updates": lambda i: 5 * i}  # fmt: skip
    run = _read(tmp_path, sb3_lines(a2c))
    assert "loss" not in run.roles and len(run.series["train/value_loss"]) == 19
    assert any("no loss taken: the algorithm logs the losses of its parts apart" in n for n in run.notes)
    sac = {
        "train/actor_loss": lambda i: -8.0 / i,
        "train/critic_loss": lambda i: 1.0 / i,
        "train/ent_coef": lambda i: 0.1,
    }
    run = _read(tmp_path, sb3_lines(sac), "sac.log")
    assert "loss" not in run.roles and run.series["train/critic_loss"].values[-1] == 0.05


def sklearn_gradient_boosting(oob=False, n=120):
    """scikit-learn/scikit-learn@8bb123b032818e3a6f884bdf9544331e91ce741c sklearn/ensemble/_gb.py
    (VerboseReporter.init: header_fields "Iter", "Train Loss", ["OOB Improve"], "Remaining Time" printed
    with ("%10s " + "%16s " * (k - 1)); rows "{iter:>10d} {train_score:>16.4f} [{oob_impr:>16.4f}]
    {remaining_time:>16s}", the time "{:.2f}s" or "{:.2f}m"; VerboseReporter.update: with verbose=1 every
    iteration to 10, then every 10th to 100, every 100th after)."""
    fields = ["Iter", "Train Loss"] + (["OOB Improve"] if oob else []) + ["Remaining Time"]
    out = [("%10s " + "%16s " * (len(fields) - 1)) % tuple(fields)]
    for it in [*range(1, 11), *range(20, 101, 10), *range(200, n * 10 + 1, 100)]:
        cells = [f"{it:>10d}", f"{1.3 * 0.98**it + 0.1:>16.4f}"] + ([f"{0.0012:>16.4f}"] if oob else [])
        rem = (n * 10 - it) * 0.05
        out.append(" ".join([*cells, f"{f'{rem / 60:.2f}m' if rem > 60 else f'{rem:.2f}s':>16s}"]))
    return out


def test_sklearn_gradient_boosting_verbose_table(tmp_path):
    run = _read(tmp_path, sklearn_gradient_boosting())
    assert run.format == "console/sklearn-boosting" and run.roles["loss"] == "Train_Loss"
    assert _series(run, "Train_Loss") == (30, 1.0, 1200.0, 1.374, 0.1)
    oob = _read(tmp_path, sklearn_gradient_boosting(oob=True), "oob.log")
    assert _series(oob, "Train_Loss")[:3] == (30, 1.0, 1200.0) and oob.series["OOB_Improve"].values[0] == 0.0012


def spacy_lines(pipes=("tok2vec", "ner"), scores=("ents_f", "ents_p", "ents_r"), rows=30):
    """explosion/spaCy@f69c32f7a033366ec0d49ec94e5a4feb885d5157 spacy/training/loggers.py:96-106 (the
    columns "E", "#", f"Loss {pipe}" per trainable pipe, the score weights, "Score"; widths 3, 6, 8 per
    loss, 6 per score; upper-cased, a name over 13 characters cut to 10 and "..." (:16-26); a header row
    and a row of dashes per width, wasabi's msg.row with spacing 2) and :125-149 (losses and the score
    '{0:.2f}', scores times 100)."""
    cols = ["E", "#"] + [f"Loss {p}" for p in pipes] + list(scores) + ["Score"]
    cols = [(c[:10] + "..." if len(c) > 13 else c).upper() for c in cols]
    widths = [max(len(c), w) for c, w in zip(cols, [3, 6] + [8] * len(pipes) + [6] * len(scores) + [6])]
    out = ["\u2139 Pipeline: " + str(list(pipes)), "\u2139 Initial learn rate: 0.001"]
    out.append("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    out.append("  ".join("-" * w for w in widths))
    for r in range(rows):
        losses = [f"{(40.0 if p in ('tok2vec', 'transformer') else 900.0) / (r + 1):.2f}" for p in pipes]
        vals = [str(r // 10), str(r * 200)] + losses + [f"{50 + r:.2f}" for _ in scores] + [f"{0.5 + r / 100:.2f}"]
        out.append("  ".join(v.rjust(w) for v, w in zip(vals, widths)))
    return out + ["\u2714 Saved pipeline to output directory"]


def test_spacy_train_table(tmp_path):
    run = _read(tmp_path, spacy_lines())
    assert run.format == "console/spacy" and run.roles["loss"] == "loss_ner"
    assert _series(run, "loss_ner") == (30, 0.0, 5800.0, 900.0, 30.0)
    assert run.series["loss_tok2vec"].values[0] == 40.0 and run.series["score"].values[-1] == 0.79
    assert run.series["epoch"].values[-1] == 2.0


def test_spacy_several_pipes_sum_their_losses(tmp_path):
    """A tagger and a parser, each trained on its own loss, beside the shared transformer (its name cut
    to 'LOSS TRANS...'): the loss judged is the task pipes' sum; the embedding layer's is not added."""
    run = _read(tmp_path, spacy_lines(pipes=("transformer", "tagger", "parser"), scores=("tag_acc", "dep_uas")))
    assert "loss_trans..." in run.series
    assert run.roles["loss"] == "loss_tagger+loss_parser"
    assert _series(run, "loss_tagger+loss_parser")[3:] == (1800.0, 60.0)


def matlab_train_network(validation_every=5, rows=30):
    """MATLAB Deep Learning Toolbox trainNetwork's verbose table (closed source; the shape as MathWorks'
    examples print it and as users paste it, e.g. a README's 'Training progress' block): rules of '=' in
    '|...|', each name on two rows ('Mini-batch' over 'Loss'), cells right-aligned in '|'-bounded columns,
    accuracies with '%', the validation cells blank on rows with no validation, the clock hh:mm:ss."""
    rule = "|" + "=" * 118 + "|"
    out = ["Training on single CPU.", "Initializing input data normalization.", rule,
           "|  Epoch  |  Iteration  |  Time Elapsed  |  Mini-batch  |  Validation  |  Mini-batch  |  Validation  |  Base Learning  |",
           "|         |             |   (hh:mm:ss)   |   Accuracy   |   Accuracy   |     Loss     |     Loss     |      Rate       |",
           rule]  # fmt: skip
    for r in range(rows):
        val = r % validation_every == 0
        cells = [f"{r // 10 + 1:>7d}", f"{r * 50 + 1:>11d}", f"{'00:%02d:%02d' % divmod(r * 7, 60):>14s}",
                 f"{50 + r:>11.2f}%", f"{48 + r:>11.2f}%" if val else " " * 12, f"{2.0 / (r + 1):>12.4f}",
                 f"{2.1 / (r + 1):>12.4f}" if val else " " * 12, f"{0.01:>15.4f}"]  # fmt: skip
        out.append("|" + "|".join(f" {c} " for c in cells) + "|")
    return out + [rule]


def test_matlab_train_network_table(tmp_path):
    run = _read(tmp_path, matlab_train_network())
    assert run.format == "console/matlab"
    assert run.roles["loss"] == "Mini-batch_Loss" and run.roles["eval_loss"] == "Validation_Loss"
    assert _series(run, "Mini-batch_Loss") == (30, 1.0, 1451.0, 2.0, pytest.approx(0.0667))
    assert _series(run, "Validation_Loss") == (6, 1.0, 1251.0, 2.1, 0.0808)
    assert run.series["Mini-batch_Accuracy"].values[0] == 50.0


def matlab_trainnet(detector=False, rows=40):
    """MATLAB trainnet's verbose table (R2023b on; the shape as printed in MathWorks' live-script outputs
    pasted in public READMEs): names over a rule of underscores, the values right-aligned under them, the
    validation loss blank where not computed; the object detector trainers print the same columns
    (Epoch first) with values left of their column's end."""
    names = ["Epoch", "Iteration"] if detector else ["Iteration", "Epoch"]
    names += ["TimeElapsed", "LearnRate", "TrainingLoss", "ValidationLoss"]
    out = ["    " + "    ".join(names), "    " + "    ".join("_" * len(n) for n in names)]
    for r in range(1, rows + 1):
        vals = {"Iteration": str(r * 20), "Epoch": str(r // 10 + 1), "TimeElapsed": "00:%02d:%02d" % divmod(r * 9, 60),
                "LearnRate": "0.001", "TrainingLoss": f"{50.0 / r:.5g}",
                "ValidationLoss": f"{60.0 / r:.5g}" if r % 5 == 0 else ""}  # fmt: skip
        if detector:  # left in the column, two spaces in
            out.append("    " + "    ".join(("  " + vals[n]).ljust(len(n)) for n in names))
        else:
            out.append("    " + "    ".join(vals[n].rjust(len(n)) for n in names))
    return out


def test_matlab_trainnet_table(tmp_path):
    for detector in (False, True):
        run = _read(tmp_path, matlab_trainnet(detector), f"trainnet{detector}.log")
        assert run.format == "console/matlab"
        assert run.roles["loss"] == "TrainingLoss" and run.roles["eval_loss"] == "ValidationLoss"
        assert _series(run, "TrainingLoss") == (40, 20.0, 800.0, 50.0, 1.25)
        assert _series(run, "ValidationLoss") == (8, 100.0, 800.0, 12.0, 1.5)
        assert run.series["LearnRate"].values[0] == 0.001


def test_lightgbm_early_stopping_repeats_its_best_round(tmp_path):
    """callback.py:351 ("Training until validation scores don't improve for N rounds") and :437 ("Early
    stopping, best iteration is:\\n[{best}]\\t{results}"): the repeated best round is no new point and no
    restart of the count."""
    lines = ["Training until validation scores don't improve for 10 rounds", *lightgbm_lines(rounds=30)[3:]]
    lines += ["Early stopping, best iteration is:", lightgbm_lines(rounds=20)[-1]]
    run = _read(tmp_path, lines)
    assert _series(run, "training/binary_logloss")[:3] == (30, 1.0, 30.0)
    assert "step_resets" not in run.meta


def marian_lines(label_counts=True, updates=40):
    """marian-nmt/marian-dev@c9f287db75b4ed27979717ff0cf543000e2e5b2e src/training/scheduler.h:99-130
    (formatLoss: "Cost " with 8 decimals; with --disp-label-counts "<avg> * <labels> @ <batch labels>
    after <labels so far>"), :559-580 ("Ep. {} : Up. {} : Sen. {} : {} : Time {:.2f}s : {:.2f} words/s :
    gNorm {:.4f}[ : L.r. {:.4e}]") and :360-375 (LOG_VALID: "Ep. {} : Up. {} : {validator} : {value} :
    new best" or ": stalled {} times (last best: {})"), behind spdlog's "[%Y-%m-%d %T] " and "[valid] "."""
    out = ["[2024-01-01 00:00:00] [marian] Marian v1.12.0 65bf82ff 2023-02-21 06:27:47 -0800",
           "[2024-01-01 00:00:00] [data] Loading vocabulary from JSON/Yaml file vocab.spm"]  # fmt: skip
    for i in range(1, updates + 1):
        cost = f"{8.0 / i:.8f}" + (f" * {1234567:,} @ {4567:,} after {i * 1234567:,}" if label_counts else "")
        out.append(
            f"[2024-01-01 00:{i // 60:02d}:{i % 60:02d}] Ep. 1 : Up. {i * 500} : Sen. {i * 12345:,} : Cost {cost} : "
            f"Time 45.67s : 2345.67 words/s : gNorm 1.2345 : L.r. {3e-4:.4e}"
        )
        if i % 10 == 0:
            out.append(
                f"[2024-01-01 00:00:00] [valid] Ep. 1 : Up. {i * 500} : ce-mean-words : {5.0 - i / 20:g} : new best"
            )
            out.append(f"[2024-01-01 00:00:00] [valid] Ep. 1 : Up. {i * 500} : bleu : {10 + i / 2:g} : new best")
    return out


def test_marian_train_log(tmp_path):
    """On main the general reader read Cost at the lines' order and the validators as other metrics."""
    for counts in (True, False):
        run = _read(tmp_path, marian_lines(counts), f"train{counts}.log")
        assert run.format == "console/marian"
        assert run.roles["loss"] == "Cost" and run.roles["eval_loss"] == "valid_ce-mean-words"
        assert _series(run, "Cost") == (40, 500.0, 20000.0, 8.0, 0.2)
        assert _series(run, "valid_ce-mean-words") == (4, 5000.0, 20000.0, 4.5, 3.0)
        assert run.series["valid_bleu"].values[-1] == 30.0 and run.series["learning_rate"].values[0] == 3e-4
