"""Crash signatures in console logs become ``crash`` events for the crash rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainlint.api import read_run
from trainlint.readers.console.crash import find_crashes
from trainlint.readers.console.text import split_lines

DATA = Path(__file__).parent.parent / "data" / "console"


def crash(run):
    assert len(run.events) >= 1, run.events
    ev = run.events[0]
    assert ev["type"] == "crash"
    return ev


def test_cuda_oom_traceback_is_one_event_named_by_its_exception():
    run = read_run(DATA / "cuda_oom.out")
    assert len(run.events) == 1
    ev = crash(run)
    assert ev["signature"] == "cuda-out-of-memory" and ev["line"] == 5
    assert ev["text"].startswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert ev["resumed"] is False
    assert len(run.get("loss")) == 3  # the progress before the crash is still read


def test_nccl_timeout_from_every_rank_counts_once():
    run = read_run(DATA / "nccl_timeout.log")
    ev = crash(run)
    assert ev["signature"] == "nccl-timeout" and ev["line"] == 5 and ev["count"] == 2
    assert "Watchdog caught collective operation timeout" in ev["text"]


def test_dataloader_worker_killed_in_a_chained_traceback():
    run = read_run(DATA / "dataloader_killed.log")
    assert len(run.events) == 1
    ev = crash(run)
    assert ev["signature"] == "dataloader-worker-killed" and ev["line"] == 4
    assert ev["text"] == "RuntimeError: DataLoader worker (pid(s) 31337) exited unexpectedly"


def test_slurm_time_limit():
    run = read_run(DATA / "slurm-4242.out")
    ev = crash(run)
    assert ev["signature"] == "slurm-time-limit" and ev["line"] == 6
    assert "DUE TO TIME LIMIT" in ev["text"]


def test_killed_by_the_shell():
    run = read_run(DATA / "killed.log")
    ev = crash(run)
    assert ev["signature"] == "killed" and ev["line"] == 4


def test_healthy_logs_have_no_crash_events():
    for name in ("keras_fit.txt", "lightning_tqdm.txt", "hf_trainer.txt", "detectron2.log", "fairseq_hydra.log"):
        assert read_run(DATA / name).events == [], name


def test_bare_killed_line_and_rank_prefixed_traceback():
    text = (
        "step 1 loss=2\n[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "t.py", line 3, in <module>\n'
        "[rank3]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error\nKilled\n"
    )
    events = find_crashes(split_lines(text))
    assert [(e["signature"], e["line"]) for e in events] == [("nccl-error", 2), ("killed", 5)]
    assert events[0]["text"].startswith("RuntimeError: NCCL error in:")


def test_crash_followed_by_more_training_is_marked_resumed():
    text = 'step 1 loss=2\nTraceback (most recent call last):\n  File "t.py", line 1\nValueError: bad\nstep 2 loss=1\n'
    (ev,) = find_crashes(split_lines(text), last_progress_line=5)
    assert ev["resumed"] is True and ev["signature"] == "python-traceback"


def test_a_word_killed_inside_a_sentence_is_not_a_crash():
    text = "step 1 loss=2 (3 stale workers killed and restarted)\n"
    assert find_crashes(split_lines(text)) == []


def test_fish_speech_launch_crashes_become_a_run_with_crash_events(evidence):
    run = read_run(evidence / "fish-speech-lightning" / "train.log")
    assert run.format == "console" and run.series == {}
    sigs = [(e["signature"], e["line"], e["text"]) for e in run.events]
    assert sigs == [
        ("python-traceback", 15, "RuntimeError: Distributed package doesn't have NCCL built in"),
        ("python-traceback", 62, "ValueError: data\\protos_val\\* is not a file or directory"),
    ]
    assert any("no training-progress lines" in n for n in run.notes)


SAMPLES = {
    "cuda-out-of-memory": "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB",
    "nccl-timeout": "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1) ran for 600012 ms",
    "nccl-error": "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970",
    "dataloader-worker-killed": "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.",
    "slurm-time-limit": "slurmstepd: error: *** STEP 77.0 ON node1 CANCELLED AT 2026-01-01T00:00:00 DUE TO TIME LIMIT ***",
    "slurm-cancelled": "slurmstepd: error: *** JOB 77 ON node1 CANCELLED AT 2026-01-01T00:00:00 ***",
    "oom-killed": "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=77.batch.",
    "killed": "Killed",
    "segmentation-fault": "Segmentation fault (core dumped)",
    "fatal-signal": "Bus error (core dumped)",
    "cuda-error": "RuntimeError: CUDA error: an illegal memory access was encountered",
    "child-failed": "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 7)",
}


@pytest.mark.parametrize("signature", sorted(SAMPLES))
def test_each_signature_is_found_on_its_own_line(signature):
    from trainlint.readers.console.crash import SIGNATURES

    assert signature in {s for s, _ in SIGNATURES}
    text = "step 1 loss=2.0\n" + SAMPLES[signature] + "\n"
    events = find_crashes(split_lines(text), 1)
    assert [(e["signature"], e["line"]) for e in events] == [(signature, 2)]


def test_every_signature_has_a_sample():
    from trainlint.readers.console.crash import SIGNATURES

    assert set(SAMPLES) == {s for s, _ in SIGNATURES}


def test_teardown_noise_after_a_normal_end(tmp_path):
    from trainlint.api import read_run

    log = tmp_path / "train.log"
    log.write_text(
        "Epoch 1/2\n5/5 - 0s - loss: 0.5\nEpoch 2/2\n5/5 - 0s - loss: 0.4\n"
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f>\n"
        'Traceback (most recent call last):\n  File "dataloader.py", line 1478, in __del__\n'
        "AttributeError: 'NoneType' object has no attribute 'python_exit_status'\n"
        'Traceback (most recent call last):\n  File "wandb/sdk/wandb_run.py", line 2200, in _atexit\n'
        "BrokenPipeError: [Errno 32] Broken pipe\n"
    )
    run = read_run(log)
    assert run.meta["completed"] is True
    # the unraisable-hook report is not a crash; the later one is flagged as after the normal end
    assert [(e["text"], e.get("after_end")) for e in run.events] == [("BrokenPipeError: [Errno 32] Broken pipe", True)]


SAVE_CRASH = """{'loss': 2.31, 'learning_rate': 2e-05, 'epoch': 0.5}
{'loss': 1.38, 'learning_rate': 2e-06, 'epoch': 1.0}
{'train_runtime': 1200.5, 'train_samples_per_second': 43.2, 'train_loss': 1.68, 'epoch': 1.0}
Saving model checkpoint to out/checkpoint-1000
Traceback (most recent call last):
  File "train.py", line 130, in <module>
    trainer.save_model()
  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 2900, in save_model
    self._save(output_dir)
OSError: [Errno 28] No space left on device
"""


def test_a_traceback_raised_while_saving_is_marked_so(tmp_path):
    """Issue 30 §3.5: a traceback after the last training step, raised while the model was being
    written (its frames say save_model), carries phase "saving"; one in training does not."""
    path = tmp_path / "train.log"
    path.write_text(SAVE_CRASH)
    ev = crash(read_run(path))
    assert ev["phase"] == "saving" and ev["line"] == 5 and ev["text"].startswith("OSError: [Errno 28]")
    assert "phase" not in crash(read_run(DATA / "cuda_oom.out"))


# Ray's report of a remote failure (ray/exceptions.py RayTaskError: the exception class named with its
# cause, 'RayTaskError(Cause): ray::fn()', then the worker's frames without a "Traceback" header), nested once
# per remote call, as a TinyZero (verl) job printed it when its checkpoint did not fit on the disk
# (Westwood-Lin/TinyZero-Reproduction@9244ccb0686f03cec058a757704861a90c59f278 part-of-logs.md).
RAY_CRASH = """step:399 - actor/pg_loss:-0.014 - critic/score/mean:0.610
(WorkerDict pid=20172) Saving actor checkpoint to checkpoints/actor/global_step_400
Traceback (most recent call last):
  File "/root/TinyZero/verl/trainer/main_ppo.py", line 103, in main
    ray.get(main_task.remote(config))
  File "/root/miniconda3/lib/python3.12/site-packages/ray/_private/worker.py", line 919, in get_objects
    raise value.as_instanceof_cause()
ray.exceptions.RayTaskError(SafetensorError): ray::main_task() (pid=19799, ip=172.17.0.5)
  File "/root/TinyZero/verl/trainer/ppo/ray_trainer.py", line 521, in _save_checkpoint
    self.actor_rollout_wg.save_checkpoint(actor_local_path, actor_remote_path)
ray.exceptions.RayTaskError(SafetensorError): ray::WorkerDict.actor_rollout_save_checkpoint() (pid=20172)
  File "/root/TinyZero/verl/workers/fsdp_workers.py", line 495, in save_checkpoint
    self.actor_module.save_pretrained(local_path, state_dict=state_dict)
safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: StorageFull })

Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.
"""


def test_a_ray_remote_failure_is_named_by_its_root_cause(tmp_path):
    ev = crash(_read_text(tmp_path, RAY_CRASH))
    assert ev["signature"] == "python-traceback" and ev["line"] == 3 and ev["phase"] == "saving"
    assert ev["text"].startswith("safetensors_rust.SafetensorError: Error while serializing")


def _read_text(tmp_path, text):
    path = tmp_path / "train.log"
    path.write_text(text)
    return read_run(path)


def test_an_oom_before_the_first_loss_line_is_a_crash_event(tmp_path):
    """Issue 30 §3.5: the model ran out of memory while loading, before any loss was logged."""
    path = tmp_path / "train.log"
    path.write_text(
        "INFO ***** Running training *****\nINFO   Total optimization steps = 3000\n"
        'Traceback (most recent call last):\n  File "train.py", line 120, in <module>\n    trainer.train()\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB.\n"
    )
    ev = crash(read_run(path))
    assert ev["signature"] == "cuda-out-of-memory" and ev["line"] == 3


def _nice_epochs(first, last):
    return [
        f"Epoch {e:>4}/1000 | train: {1000.0 - e:.4f} (2.0 bpd) | val: {990.0 - e:.4f} (1.9 bpd) | lr: 0.0001"
        for e in range(first, last)
    ]


# nice-train-900: multiprocessing's finaliser failed to remove its temporary folder while training went on
_FINALISER = [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.12/multiprocessing/util.py", line 303, in _run_finalizers',
    "    finalizer()",
    '  File "/usr/lib/python3.12/multiprocessing/util.py", line 136, in _remove_temp_dir',
    "    rmtree(tempdir, onerror=onerror)",
    '  File "/usr/lib/python3.12/shutil.py", line 764, in onexc',
    "    return onerror(func, path, exc_info)",
    "OSError: [Errno 39] Directory not empty: '/tmp/pymp-lwwx17y7'",
]


def test_a_multiprocessing_helpers_traceback_mid_run_is_not_a_crash(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("\n".join(_nice_epochs(1, 20) + _FINALISER + _nice_epochs(20, 40)) + "\n")
    run = read_run(log)
    assert run.events == [] and len(run.get("train_loss")) == 39


def test_the_same_traceback_where_the_log_stops_is_still_recorded(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("\n".join(_nice_epochs(1, 20) + _FINALISER) + "\n")
    assert crash(read_run(log))["text"].startswith("OSError: [Errno 39]")


def test_a_traceback_from_the_training_script_mid_run_is_still_a_crash_and_relaunch():
    lines = split_lines(
        "\n".join(
            _nice_epochs(1, 5)
            + ["Traceback (most recent call last):", '  File "train.py", line 12, in <module>', "RuntimeError: boom"]
            + _nice_epochs(1, 5)
        )
    )
    events = find_crashes(lines, last_progress_line=len(lines))
    assert [e["signature"] for e in events] == ["python-traceback"] and events[0]["resumed"] is True


def test_tensorflow_allocator_retries_are_not_a_crash(tmp_path):
    # bilstm-crf-word-segmentation-train-log-930: INFO lines of TensorFlow's allocator between two epochs
    retry = (
        "2021-05-09 18:30:53.337423: I tensorflow/stream_executor/cuda/cuda_driver.cc:789] failed to allocate "
        "613.15M (642935552 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory"
    )
    lines = []
    for e in range(1, 21):
        lines += [f"Epoch {e}/20", f"19/19 - 12s - loss: {0.34 / e:.4f} - accuracy: 0.9"] + (
            [retry] * 3 if e == 14 else []
        )
    log = tmp_path / "train_log.txt"
    log.write_text("\n".join(lines) + "\n")
    assert find_crashes(split_lines(log.read_text())) == []
    # the same error from the CUDA runtime itself, not at INFO level, stays a crash
    assert (
        find_crashes(split_lines("RuntimeError: CUDA error: CUDA_ERROR_OUT_OF_MEMORY\n"))[0]["signature"]
        == "cuda-error"
    )
