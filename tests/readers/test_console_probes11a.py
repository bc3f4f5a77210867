"""Line shapes seen in training prints in other languages, found outside the corpus (issue 29,
probe round 11a: Chinese, Japanese and Korean prints). Each fixture is made up in the shape of the
print (repository, path and commit recorded with it; no copied lines) and asserts the series read:
names, steps, first and last values, and which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series


def _loss(k: int, start: float = 2.4) -> float:
    return round(start * 0.9**k, 4)


def test_a_chinese_step_counter_places_the_points(tmp_path):
    """A Chinese nanoGPT port (find_string id 52494899701, train.py): every eval_interval it prints
    "步骤 500: 训练损失 4.1234, 验证损失 4.2345". 步骤 is the step: the points sit at it, not at
    the order of the lines."""
    lines = [f"步骤 {i * 250}: 训练损失 {_loss(i)}, 验证损失 {_loss(i, 2.6)}" for i in range(12)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (12, 0.0, 2750.0, 2.4, _loss(11))
    assert _series(run, "val_loss") == (12, 0.0, 2750.0, 2.6, _loss(11, 2.6))


def test_an_iteration_count_and_a_batch_count_in_chinese(tmp_path):
    """Gradient-descent tutorials print "迭代次数: 1000, 损失值: 0.52" (find_string id 47912596570)
    and translation-model scripts "批次 100, 损失: 6.8321, 学习率: 0.000052" (ids 39747343395,
    3761287284): 迭代次数 (iteration count) and 批次 (batch) are the step."""
    run = _read(tmp_path, [f"迭代次数: {i * 1000}, 损失值: {_loss(i)}" for i in range(12)])
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 0.0, 11000.0, 2.4, _loss(11))
    lines = [f"批次 {i * 100}, 损失: {_loss(i, 10)}, 学习率: 0.0000{i % 9 + 1}" for i in range(12)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["learning_rate"] == "lr"
    assert _series(run, "loss") == (12, 0.0, 1100.0, 10.0, _loss(11, 10))


def test_the_batch_size_is_no_batch_counter(tmp_path):
    """批次大小 (batch size) in a config print before the loop is not a batch counter."""
    lines = ["批次大小: 64", "学习率: 0.001"] + [f"迭代次数: {i * 100}, 损失值: {_loss(i)}" for i in range(12)]
    run = _read(tmp_path, lines)
    assert _series(run, "loss") == (12, 0.0, 1100.0, 2.4, _loss(11))


def test_the_loss_function_value_and_a_korean_iteration(tmp_path):
    """Prints like "第3次迭代, 损失函数值: 0.52" (损失函数值: the loss function's value) and the Korean
    "반복 100: 손실 = 0.52" (반복: iteration) read as the loss."""
    run = _read(tmp_path, [f"第{e}次迭代, 损失函数值: {_loss(e)}" for e in range(1, 13)])
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    run = _read(tmp_path, [f"반복 {i * 100}: 손실 = {_loss(i)}" for i in range(12)])
    assert _series(run, "loss") == (12, 0.0, 1100.0, 2.4, _loss(11))


def test_the_katakana_loss(tmp_path):
    """Japanese scripts write the loss in katakana as often as 損失: "[3/12] 学習ロス: 0.52
    検証ロス: 0.61"."""
    lines = [f"[{e}/12] 学習ロス: {_loss(e)} 検証ロス: {_loss(e, 2.6)}" for e in range(1, 13)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    assert _series(run, "val_loss") == (12, 1.0, 12.0, _loss(1, 2.6), _loss(12, 2.6))


def test_is_between_the_name_and_its_value(tmp_path):
    """Prints like "第3个epoch，训练loss为0.52，测试准确率为0.81" (为: "is") and the Japanese
    "エポック3: 学習損失は0.52、検証損失は0.61です" (は: the topic, 、 the comma): the word for
    "is" stands for the colon."""
    lines = [f"第{e}个epoch，训练loss为{_loss(e)}，测试准确率为0.{80 + e}" for e in range(1, 13)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss"
    assert _series(run, "train_loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    assert _series(run, "test_acc") == (12, 1.0, 12.0, 0.81, 0.92)
    lines = [f"エポック{e}: 学習損失は{_loss(e)}、検証損失は{_loss(e, 2.6)}です" for e in range(1, 13)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "val_loss") == (12, 1.0, 12.0, _loss(1, 2.6), _loss(12, 2.6))


def test_the_parts_of_a_chinese_loss_are_not_the_bare_loss(tmp_path):
    """A spectrum model's pretraining print (find_string id 865823926, train.py): "Epoch [3/50]
    Summary - 总平均损失: 2.16, 光谱损失: 0.9, 指标损失: 1.26, 学习率: 1.00e-03". 光谱损失 and
    指标损失 are parts of the loss (loss_光谱, loss_指标), not a bare loss: the loss is the total
    (总, total), which came out as the first part before."""
    lines = [
        f"Epoch [{e}/12] Summary - 总平均损失: {_loss(e)}, 光谱损失: {_loss(e, 1.0)}, "
        f"指标损失: {_loss(e, 1.4)}, 学习率: 1.00e-03"
        for e in range(1, 13)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "total_avg_loss"
    assert _series(run, "total_avg_loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    assert _series(run, "loss_光谱") == (12, 1.0, 12.0, _loss(1, 1.0), _loss(12, 1.0))
    assert "loss" not in run.series


def test_the_total_loss_printed_after_its_parts(tmp_path):
    """Prints like "分类损失: 0.3, 回归损失: 0.2, 总损失: 0.5" (parts first, then 总损失, the total loss): the
    total is the loss; a loss with a particle before it (学習の損失) keeps its split."""
    lines = [
        f"epoch {e} 分类损失: {_loss(e, 1.0)}, 回归损失: {_loss(e, 1.4)}, 总损失: {_loss(e)}" for e in range(1, 13)
    ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "total_loss"
    assert _series(run, "total_loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    run = _read(tmp_path, [f"エポック {e}: 学習の損失: {_loss(e)}" for e in range(1, 13)])
    assert run.roles["loss"] == "train_loss"


def test_a_set_loss_with_a_space_before_its_value(tmp_path):
    """Prints like "第 3 轮 | 训练集损失 0.52 | 验证集损失 0.61 | 用时 12.3s" (the value after a space,
    not a colon): 训练集损失 is the training loss and 验证集损失 the validation loss; both were read
    as one bare loss before."""
    lines = [f"第 {e} 轮 | 训练集损失 {_loss(e)} | 验证集损失 {_loss(e, 2.6)} | 用时 12.{e}s" for e in range(1, 13)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "train_loss") == (12, 1.0, 12.0, _loss(1), _loss(12))
    assert _series(run, "val_loss") == (12, 1.0, 12.0, _loss(1, 2.6), _loss(12, 2.6))


def test_the_korean_ssd_book_iteration_lines(tmp_path):
    """The Korean edition of an SSD training notebook (find_string id 49238915835): "반복 150 ||
    손실: 7.0848 || 10반복 소요 시간: 196.5162 초" every ten iterations and "에폭 1 || 훈련 손실: ... ||
    검증 손실: ..." at an epoch's end. 반복 is the iteration: the points sit at it; the timing's
    "10반복" is no counter."""
    lines = ["Epoch 1/2", "-------------", "(train)"]
    lines += [f"반복 {i * 10} || 손실: {_loss(i, 7.5)} || 10반복 소요 시간: {3.2 + i:.4f} 초" for i in range(1, 13)]
    lines += ["-------------", "에폭 1 || 훈련 손실: 6.1234 || 검증 손실: 5.9876", "에폭 소요 시간: 3632.3862 초"]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 10.0, 120.0, _loss(1, 7.5), _loss(12, 7.5))


def test_a_korean_ordinal_step(tmp_path):
    """A Korean Keras tutorial's output (find_string id 36203274664): "0번째 스텝의 손실: 3.6422"
    ("the 0th step's loss"). The ordinal before 스텝 is the step."""
    run = _read(tmp_path, [f"{i}번째 스텝의 손실: {_loss(i, 3.6)}" for i in range(12)])
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 0.0, 11.0, 3.6, _loss(11, 3.6))
