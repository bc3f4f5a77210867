"""Line shapes seen in real training logs outside the corpus (probe 10b), written here as made-up
lines in the same shape; each test names the repository, path and commit where the shape was seen."""

from __future__ import annotations

from _consolekit import read_lines, series_ends


def _reid(epochs: range, per_epoch: int = 200, done: bool = False) -> list[str]:
    out = ["2021-02-09 09:52:32,690 baseline.train INFO: start training"]
    k = 0
    for e in epochs:
        for it in range(50, per_epoch + 1, 50):
            k += 1
            out.append(
                f"2021-02-09 09:54:45,481 baseline.train INFO: Epoch[{e}] Iteration[{it}/{per_epoch}] "
                f"Loss: {1.0 / k:.3f}, Acc: {0.5 + k / 100:.3f}, Base Lr: 3.82e-05"
            )
        if done:
            out.append(f"2021-02-09 12:21:57,337 baseline.train INFO: Epoch {e} done. Time per batch: 2.648[s]")
    return out


def test_reid_epoch_bracket_iteration_counts_within_the_epoch(tmp_path):
    # reid-strong-baseline's "Epoch[{}] Iteration[{}/{}] Loss: {:.3f}, Acc: {:.3f}, Base Lr: {:.2e}"
    # (seen in 1490780232/ranzcr_clip_catether_line_classifiation log/log.txt @ 7bf8c1cc): the
    # iteration restarts each epoch, it is no relaunch
    run = read_lines(tmp_path, _reid(range(1, 4)))
    assert run.format == "console/generic-epoch-step" and run.roles["loss"] == "Loss"
    assert series_ends(run, "Loss") == (12, 50.0, 600.0, 1.0, 0.083)
    assert run.roles["learning_rate"] == "Lr"


def test_reid_epochs_counted_from_zero_start_at_zero(tmp_path):
    run = read_lines(tmp_path, _reid(range(0, 3)))
    assert series_ends(run, "Loss") == (12, 50.0, 600.0, 1.0, 0.083)


def test_reid_with_epoch_done_lines_reads_the_same_steps(tmp_path):
    run = read_lines(tmp_path, _reid(range(1, 4), done=True))
    assert run.roles["loss"] == "Loss" and series_ends(run, "Loss") == (12, 50.0, 600.0, 1.0, 0.083)


def test_faster_rcnn_session_epoch_iter_brackets(tmp_path):
    # jwyang/faster-rcnn.pytorch's "[session %d][epoch %2d][iter %4d/%4d] loss: %.4f, lr: %.2e" (seen in
    # Miss-Li97/faster_rcnn_mhi loss.txt @ 20e50885): iter counts within the epoch
    lines = [
        f"[session 1][epoch {e:2d}][iter {i:4d}/ 500] loss: {2.0 / (5 * e + i / 100):.4f}, lr: 1.00e-03,"
        f"fg/bg=(26/230), time cost: 1.284360,rpn_cls: 0.6263, rpn_box: 0.0286, rcnn_cls: 0.5479, rcnn_box 0.2629"
        for e in (1, 2)
        for i in range(0, 500, 100)
    ]
    run = read_lines(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert series_ends(run, "loss") == (10, 0.0, 900.0, 0.4, 0.1429)
    assert "max_steps" not in run.meta  # 500 is an epoch's iterations, not the run's


def test_a_loops_own_early_stop_line_is_a_completion_record(tmp_path):
    # "Epoch {e}/{n} - Train Loss: .., Train Acc: .. - Val Loss: .., Val Acc: .." then "Early stopping at
    # epoch {e}" (seen in Akrambro/TCN-Qbot training_log.txt @ 2a95dd1f): the run ended normally
    lines = [
        f"Epoch {e}/50 - Train Loss: {0.9 - e / 100:.4f}, Train Acc: {0.5 + e / 100:.4f} - Val Loss: "
        f"{0.95 - e / 200:.4f}, Val Acc: {0.5 + e / 200:.4f}"
        for e in range(1, 13)
    ]
    run = read_lines(tmp_path, [*lines, "Early stopping at epoch 12"], name="training_log.txt")
    assert run.roles["loss"] in ("train_loss", "Train_Loss") and len(run.series[run.roles["loss"]].steps) == 12
    assert run.meta.get("completed") is True


def test_an_early_stopping_counter_is_no_completion(tmp_path):
    lines = [f"Epoch {e}/50 - Train Loss: {0.9 - e / 100:.4f}" for e in range(1, 13)]
    run = read_lines(tmp_path, [*lines, "EarlyStopping counter: 3 out of 7"], name="training_log.txt")
    assert not run.meta.get("completed")


def test_bracketed_epoch_with_a_colon_and_a_split_word_after_it(tmp_path):
    # "HH:MM:SS [Epoch: 05] Train acc: .. | loss: ..", every fifth epoch "[Epoch: 05] Valid acc: .. | loss: .."
    # (seen in GiveMeTheReason/gesture-navigation train_log.txt @ 3be7fc92): the split word leading the
    # line after the epoch names the split of its loss (it was read as training points)
    lines = ["17:43:32 | Training for 50 epochs started!"]
    for e in range(1, 21):
        lines.append(f"17:46:38 [Epoch: {e:02d}] Train acc: {0.1 + e / 50:.4f} | loss: {2.7 - e / 20:.4f}")
        if e % 5 == 0:
            lines.append(f"18:02:35 [Epoch: {e:02d}] Valid acc: {0.2 + e / 50:.4f} | loss: {2.2 - e / 25:.4f}")
    run = read_lines(tmp_path, lines, name="train_log.txt")
    assert run.roles["loss"] == "loss" and series_ends(run, "loss") == (20, 1.0, 20.0, 2.65, 1.7)
    assert run.roles["eval_loss"] == "Valid_loss" and series_ends(run, "Valid_loss") == (4, 5.0, 20.0, 2.0, 1.4)


def test_segan_pytorch_lines_give_the_generators_objective(tmp_path):
    # segan_pytorch's "(Iter {}) Batch {}/{} (Epoch {}) d_real:.., d_fake:.., g_adv:.., g_l1:.. l1_w: .., btime: .. s,
    # mbtime: .. s" (seen in BaiYuhaoSpiceeYJ/SEGAN_denoise loss.txt @ 5bf65ae7): no term names a loss; the
    # generator's g_adv + g_l1 is
    lines = [
        f"(Iter {i}) Batch {i}/6250 (Epoch 1) d_real:0.1000, d_fake:0.2000, g_adv:0.5000, g_l1:{3.5 - i / 500:.4f} "
        f"l1_w: 100.00, btime: 0.9493 s, mbtime: 0.9427 s"
        for i in range(50, 1050, 50)
    ]
    run = read_lines(tmp_path, lines, name="loss.txt")
    assert run.format == "console/segan" and run.roles["loss"] == "loss_G"
    assert series_ends(run, "loss_G") == (20, 50.0, 1000.0, 3.9, 2.0)
    assert abs(series_ends(run, "loss_D")[3] - 0.3) < 1e-9


def test_ultralytics_own_progress_bar_rows_are_read(tmp_path):
    # ultralytics 8.3+ draws its own bar: "      1/100      1.68G      2.704 ...       1024: 100% ━━━━━━━━━━━━ 1083/1083
    # 3.3it/s 5:20" (seen in 12345678998765432112/steel_det_project train_log.txt @ b15afa06, a YOLOv8-seg run);
    # the table was read only with tqdm's "100%|████|" bar
    head = "      Epoch    GPU_mem   box_loss   seg_loss   cls_loss   dfl_loss   sem_loss  Instances       Size"
    lines = ["Starting training for 3 epochs...", "", head, ""]
    for e in range(1, 4):
        lines += [
            f"      {e}/3      1.64G      {3.0 - e * 0.3:.3f}      5.278      {9 - e:.3f}      1.766          0          2"
            "       1024: 50% ━━━━━━────── 541/1083 3.3it/s 2.7s<7:36",
            f"      {e}/3      1.68G      {2.9 - e * 0.3:.3f}      5.100      {8.5 - e:.3f}      1.700          0         16"
            "       1024: 100% ━━━━━━━━━━━━ 1083/1083 3.3it/s 5:20",
            f"                   all       2514       3102      0.{e}21      0.332      0.211      0.101",
        ]
    run = read_lines(tmp_path, [*lines, "3 epochs completed in 0.301 hours."], name="train_log.txt")
    assert run.format == "console/yolo" and run.roles["loss"] == "loss"
    n, first, last, v0, v1 = series_ends(run, "loss")
    assert (n, first, last) == (3, 1.0, 3.0) and abs(v0 - (2.6 + 5.1 + 7.5 + 1.7)) < 1e-9
    assert run.meta.get("completed") is True


def test_a_line_announcing_the_evaluation_names_the_next_lines_split(tmp_path):
    # "epoch: 3,  loss is: .., acc is: .." for training, then "testing in eval mode……" and the same shape for the
    # evaluation (seen in AIHHU/PaddleCIFAR10 training_log.txt @ 1bfca6a2): the evaluation was read as training points
    lines = []
    for e in range(12):
        lines += [
            f"epoch: {e},  loss is: {1.0 - e / 20:.4f}, acc is: {0.5 + e / 40:.4f}",
            "testing in eval mode……",
            f"epoch: {e},  loss is: {1.2 - e / 30:.4f}, acc is: {0.4 + e / 40:.4f}",
            "Now continue training……",
        ]
    run = read_lines(tmp_path, lines, name="training_log.txt")
    assert run.roles["loss"] == "loss_is" and series_ends(run, "loss_is") == (12, 0.0, 11.0, 1.0, 0.45)
    assert run.roles["eval_loss"] == "test_loss_is" and series_ends(run, "test_loss_is")[0] == 12
