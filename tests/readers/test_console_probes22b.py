"""Kinds a blind sample of outside logs (probe round 22b: the first repositories find_files lists for
``training_output.txt``, labelled before trainlint read them) found read short or not at all: a PPO loop's
per-episode summary block (``Episode 5 完成`` header, then ``- Policy Loss: ..`` lines) with another
thread's warnings printed twice between the header and the block, which had made the block a record
a line and its losses an evaluation; and a traceback written through Windows PowerShell (``python :
Traceback (most recent call last):``, then PowerShell's error record), which had left a crashed run
NOT-CHECKED. Each fixture is made up in the shape of the real file (repository, path and
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


def _error_record(command: str, at: str) -> list[str]:
    """The error record Windows PowerShell prints for python's first stderr line, in the console's
    language (``at``), the command cut at the console's width."""
    return [
        "python : Traceback (most recent call last):",
        at,
        f'+ ... project" ; {command} ...',
        "+                  ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
        "    + CategoryInfo          : NotSpecified: (Traceback (most recent call last) ",
        "   ::String) [], RemoteException",
        "    + FullyQualifiedErrorId : NativeCommandError",
        " ",
    ]


def _powershell_crash(at: str = "At line:1 char:42") -> list[str]:
    """Adityagiri06/SMS-Spam-Detection training_output.txt @8ec383c8 (UTF-16, ``python train_model.py >
    training_output.txt 2>&1`` in Windows PowerShell) and CHAYBI500/darija-nlp-project @7d90be8a (the
    same with ``| tee``, a French console: ``Au caractère Ligne:1 : 1``): a banner, then the script's
    first stderr line, its traceback, behind PowerShell's error record; the frames cut at the
    console's width at a blank."""
    return [
        "=" * 60,
        "TEXT CLASSIFIER - MODEL TRAINING",
        "=" * 60,
        "",
        "[1/4] Loading dataset...",
        *_error_record("python train.py > training_output.txt 2>&1", at),
        '  File "C:\\Users\\me\\text-classifier\\train.py", line 48, in ',
        "<module>",
        "    df = pd.read_csv(DATA_PATH)",
        "  File ",
        '"C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\pandas\\io\\parsers.py", ',
        "line 912, in read_csv",
        "    return _read(filepath_or_buffer, kwds)",
        "FileNotFoundError: [Errno 2] No such file or directory: ",
        "'data/messages.csv'",
    ]


def _crash_event(path):
    [ev] = [e for e in read_run(path).events if e["type"] == "crash"]
    return ev


def test_a_traceback_behind_powershell_s_error_record_is_a_crash(tmp_path):
    path = tmp_path / "training_output.txt"
    path.write_bytes("\r\n".join(_powershell_crash()).encode("utf-16") + "\r\n".encode("utf-16-le"))
    ev = _crash_event(path)
    assert ev["signature"] == "python-traceback" and ev["line"] == 6
    assert ev["text"] == "FileNotFoundError: [Errno 2] No such file or directory:"


def test_the_error_record_in_another_language_is_passed_over_too(tmp_path):
    path = tmp_path / "training_output.txt"
    path.write_text("\n".join(_powershell_crash("Au caractère Ligne:1 : 1")) + "\n", encoding="utf-8")
    ev = _crash_event(path)
    assert ev["line"] == 6 and ev["text"].startswith("FileNotFoundError: [Errno 2]")


def test_epochs_then_a_traceback_behind_the_error_record_keep_their_loss(tmp_path):
    """The script printed its epochs to stdout, so its traceback is the first stderr line: PowerShell's
    record stands before it, after the training."""
    epochs = [f"Epoch {e}/12 - Loss: {2.0 / e:.4f}" for e in range(1, 13)]
    crash = _powershell_crash()[5:]
    path = tmp_path / "training_output.txt"
    path.write_text("\n".join(epochs + crash) + "\n", encoding="utf-8")
    run = read_run(path)
    assert _series(run, run.roles["loss"]) == (12, 1.0, 12.0, 2.0, round(2.0 / 12, 4))
    [ev] = [e for e in run.events if e["type"] == "crash"]
    assert ev["line"] == 13 and ev["text"].startswith("FileNotFoundError")


def test_a_frame_cut_inside_a_word_at_the_record_s_width_goes_on(tmp_path):
    """CHAYBI500/darija-nlp-project training_output.txt @7d90be8a: PowerShell cut a frame at its
    console's width (the error record's longest line, 79 characters) inside a path, with no blank
    at the cut: ``..\\Lib\\encodings\\cp`` then ``1252.py", line 19, in encode``."""
    width = 79
    record = _error_record("python src/train.py 2>&1 | tee training_output.txt", "Au caractère Ligne:1 : 1")
    record[4] = record[4].ljust(width)  # the CategoryInfo line, cut at the width
    frame = '  File "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python313\\Lib\\encodings\\cp1252.py", line 19, in encode'
    lines = [
        *record,
        '  File "C:\\Users\\me\\proj\\src\\train.py", line 25, in <module>',
        '    print("\\U0001f4ca Distribution:")',
        frame[:width],
        frame[width:],
        "    return codecs.charmap_encode(input,self.errors,encoding_table)[0]",
        "UnicodeEncodeError: 'charmap' codec can't encode character '\\U0001f4ca' in ",
        "position 2: character maps to <undefined>",
    ]
    assert len(record[4]) == width and not frame[width:].startswith(" ")
    path = tmp_path / "training_output.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ev = _crash_event(path)
    assert ev["line"] == 1 and ev["text"].startswith("UnicodeEncodeError: 'charmap' codec")
