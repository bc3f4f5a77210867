"""The words of a training loop's print in other languages, read as the English words they mean.

Many training scripts print their progress in the author's language: ``Epoch 3 | 训练损失: 4.61 |
验证损失: 6.00``, ``エポック 3 損失: 0.52``, ``에폭 3 손실: 0.41``, ``Эпоха 3, потери: 0.38``,
``perte: 0.52``. The general line reader knows its names and counters in English, so such a line
is first rewritten with the English word for each known term (``train loss: 4.61 | val loss:
6.00``): the names it reads are then those any English log would give. Only words that name a
loss, a split, a counter, a learning rate or an accuracy are rewritten; every other word stays.
Full-width punctuation (``：``, ``，``) becomes its ASCII form, as a colon or comma in a CJK
line is usually typed full-width.
"""

from __future__ import annotations

import re

# Each term and the English it means, by language. A term inside a longer word of the same script
# is rewritten too (Chinese, Japanese and Korean write a name's words without spaces: 训练损失).
_TERMS: dict[str, str] = {
    # Chinese, simplified and traditional
    "学习率": "lr",
    "學習率": "lr",
    "总损失": "total loss",  # "总损失: 2.16, 分类损失: 0.9": the total beside its parts
    "總損失": "total loss",
    "总平均损失": "total avg loss",
    "损失函数值": "loss",  # "损失函数值: 0.52": the loss function's value
    "损失函数": "loss",
    "损失值": "loss",
    "损失": "loss",
    "損失": "loss",
    "训练": "train",
    "訓練": "train",
    "验证": "val",
    "驗證": "val",
    "测试": "test",
    "測試": "test",
    "准确率": "acc",
    "準確率": "acc",
    "正确率": "acc",
    "精度": "acc",
    "轮次": "epoch",
    "迭代次数": "iter",  # "迭代次数: 1000, 损失值: 0.52": the iteration count
    "迭代": "iter",
    "步数": "step",
    "步骤": "step",  # "步骤 500: 训练损失 4.1": the step
    "批次大小": "batch size",
    "批次": "batch",  # "批次 100, 损失: 6.83": the batch
    "轮数": "epoch",  # "轮数: 3/50": the epoch
    "平均": "avg",
    "完成": "done",  # "Epoch 16 完成": the epoch's summary line
    "训练集损失": "train loss",  # "训练集损失 0.52 | 验证集损失 0.61": the set word adds nothing to the split
    "验证集损失": "val loss",
    "测试集损失": "test loss",
    "训练集": "train set",
    "验证集": "val set",
    "测试集": "test set",
    "数据集": "set",
    # Japanese (学習率 above; 損失 shared with traditional Chinese)
    "学習": "train",
    "検証": "val",
    "評価": "eval",
    "テスト": "test",
    "エポック": "epoch",
    "ステップ": "step",
    "イテレーション": "iter",
    "ロス": "loss",  # "学習ロス: 0.52": the loss written in katakana
    "総損失": "total loss",
    "正解率": "acc",
    # Korean
    "학습률": "lr",
    "총손실": "total loss",
    "손실": "loss",
    "학습": "train",
    "훈련": "train",
    "검증": "val",
    "테스트": "test",
    "정확도": "acc",
    "에포크": "epoch",
    "에폭": "epoch",
    "스텝": "step",
    "반복": "iter",  # "반복 100: 손실 = 0.52": the iteration
    # Russian
    "потери": "loss",
    "потеря": "loss",
    "эпоха": "epoch",
    "Эпоха": "Epoch",
    "шаг": "step",
    "Шаг": "Step",
    "Потери": "Loss",
    "потери на обучении": "train loss",  # "loss on training": the split said after the loss
    "Потери на обучении": "Train loss",
    "потери на валидации": "val loss",
    "Потери на валидации": "Val loss",
    "потери на тесте": "test loss",
    "лосс": "loss",
    "точность": "acc",
    "Точность": "Acc",
    "итерация": "iter",
    "Итерация": "Iter",
}
# Arabic and Persian (written here as ``_arabic_script`` normalises them: Persian yeh and keheh for
# Arabic yeh and kaf, no zero-width non-joiner). Both say the split after the loss ("خسارة التدريب",
# "خطای آموزش": the loss of training): :data:`_SPLIT_AFTER` puts it first. Persian's "خطا" (error)
# is the word its scripts print for the loss with a split ("خطای آموزش"); alone it is "error", which
# the general reader takes as the loss only where no score is printed beside it.
_ARABIC_TERMS: dict[str, str] = {
    "معدل التعلم": "lr",
    "دالة الخسارة": "loss",
    "الخسارة": "loss",
    "خسارة": "loss",
    "الفقد": "loss",
    "الفقدان": "loss",
    "فقدان": "loss",
    "الخطأ": "error",
    "خطأ": "error",
    "التدريب": "train",
    "تدريب": "train",
    "التحقق من الصحة": "val",
    "التحقق": "val",
    "تحقق": "val",
    "الاختبار": "test",
    "اختبار": "test",
    "الدقة": "acc",
    "دقة": "acc",
    "الحقبة": "epoch",
    "حقبة": "epoch",
    "العصر": "epoch",
    "الدورة": "epoch",
    "الخطوة": "step",
    "خطوة": "step",
    "التكرار": "iter",
    "الدفعة": "batch",
    # Persian
    "نرخ یادگیری": "lr",
    "خطای آموزش": "train loss",
    "خطای اعتبارسنجی": "val loss",
    "خطای ارزیابی": "val loss",
    "خطای آزمون": "test loss",
    "خطای تست": "test loss",
    "خطا": "error",
    "زیان": "loss",
    "اتلاف": "loss",
    "هزینه": "cost",
    "آموزش": "train",
    "اعتبارسنجی": "val",
    "ارزیابی": "eval",
    "آزمون": "test",
    "دقت": "acc",
    "دوره": "epoch",
    "ایپاک": "epoch",
    "ایپوک": "epoch",
    "اپوک": "epoch",
    "گام": "step",
    "مرحله": "step",
    "تکرار": "iter",
    "دسته": "batch",
}
_ARABIC_SCRIPT = re.compile(r"[\u0600-\u06ff]")
# Arabic-Indic and Persian digits, the Arabic decimal and thousands separators and punctuation;
# Arabic yeh and kaf as Persian writes them; the zero-width non-joiner and direction marks dropped
_ARABIC_NORMAL = str.maketrans(
    {
        **{chr(0x660 + i): str(i) for i in range(10)},
        **{chr(0x6F0 + i): str(i) for i in range(10)},
        "\u066b": ".",
        "\u066c": "",
        "\u060c": ",",
        "\u061b": ";",
        "\u066a": "%",
        "\u064a": "\u06cc",
        "\u0649": "\u06cc",
        "\u0643": "\u06a9",
        "\u200c": "",
        "\u200e": "",
        "\u200f": "",
        "\u061c": "",
    }
)
_TERMS.update({key.translate(_ARABIC_NORMAL): word for key, word in _ARABIC_TERMS.items()})
# "loss train", "acc val": the split said after what it is of (Arabic, Persian), read split first
_SPLIT_AFTER = re.compile(r"\b(loss|acc|error|cost)\s+(train|val|eval|test)\b")

# Words of Latin-script languages (and Cyrillic ones outside Russian): rewritten only as whole words,
# in any case ("Perda de Treino", "PÉRDIDA"); a word written capitalised gets its English capitalised.
# An entry written with a capital is its own rewrite ("Trainingsverlust" -> "train loss").
_WORDS: dict[str, str] = {
    # a split said after the loss ("perda de treino": loss of training)
    "perda de treino": "train loss",
    "perda de treinamento": "train loss",
    "perda de validação": "val loss",
    "perda de teste": "test loss",
    "perte d'entraînement": "train loss",
    "perte de validation": "val loss",
    "pérdida de entrenamiento": "train loss",
    "pérdida de validación": "val loss",
    "Trainingsverlust": "train loss",
    "Validierungsverlust": "val loss",
    "Testverlust": "test loss",
    "perte": "loss",  # French
    "Perte": "Loss",
    "Verlust": "Loss",  # German
    "verlust": "loss",
    "pérdida": "loss",  # Spanish
    "Pérdida": "Loss",
    "perdida": "loss",
    "perda": "loss",  # Portuguese
    "Perda": "Loss",
    "perdita": "loss",  # Italian
    "Perdita": "Loss",
    "kayıp": "loss",  # Turkish, and its possessive ("Eğitim Kaybı": the training's loss)
    "kayip": "loss",
    "kaybı": "loss",
    "kaybi": "loss",
    "strata": "loss",  # Polish
    "verlies": "loss",  # Dutch
    "förlust": "loss",  # Swedish
    "pierdere": "loss",  # Romanian
    "ztráta": "loss",  # Czech
    "kerugian": "loss",  # Indonesian
    "mất mát": "loss",  # Vietnamese
    "втрати": "loss",  # Ukrainian
    "втрата": "loss",
    "custo": "cost",  # the cost a script minimises, as an English log's "Cost"
    "coste": "cost",
    "costo": "cost",
    "coût": "cost",
    "kosten": "cost",
    "koszt": "cost",
    "maliyet": "cost",
    # the split a loss or an accuracy is of
    "treino": "train",
    "treinamento": "train",
    "entrenamiento": "train",
    "entraînement": "train",
    "entrainement": "train",
    "addestramento": "train",
    "allenamento": "train",
    "trening": "train",
    "treningu": "train",
    "treningowa": "train",  # Polish adjectives, said after the loss ("Strata treningowa")
    "treningowe": "train",
    "treningowy": "train",
    "eğitim": "train",
    "egitim": "train",
    "träning": "train",
    "antrenare": "train",
    "pelatihan": "train",
    "huấn luyện": "train",
    "навчання": "train",
    "validação": "val",
    "validacao": "val",
    "validación": "val",
    "validacion": "val",
    "validazione": "val",
    "validierung": "val",
    "walidacja": "val",
    "walidacji": "val",
    "walidacyjna": "val",
    "walidacyjne": "val",
    "walidacyjny": "val",
    "doğrulama": "val",
    "dogrulama": "val",
    "validatie": "val",
    "validering": "val",
    "validare": "val",
    "validasi": "val",
    "валідації": "val",
    "teste": "test",
    "prueba": "test",
    "testowa": "test",
    "testowe": "test",
    # accuracy, learning rate and the counters
    "acurácia": "acc",
    "acuracia": "acc",
    "exactitud": "acc",
    "accuratezza": "acc",
    "genauigkeit": "acc",
    "dokładność": "acc",
    "doğruluk": "acc",
    "dogruluk": "acc",
    "nauwkeurigheid": "acc",
    "akurasi": "acc",
    "độ chính xác": "acc",
    "taxa de aprendizado": "lr",
    "taxa de aprendizagem": "lr",
    "tasa de aprendizaje": "lr",
    "taux d'apprentissage": "lr",
    "lernrate": "lr",
    "Époque": "Epoch",
    "époque": "epoch",
    "Época": "Epoch",
    "época": "epoch",
    "Epoche": "Epoch",
    "epoca": "epoch",  # Italian, Romanian; Spanish and Portuguese without the accent
    "epo": "epoch",  # época cut short ("  Epo 12: Loss=1.04 | Acc=83.40%")
    "epoka": "epoch",  # Polish
    "epok": "epoch",  # Turkish, Swedish
    "epocha": "epoch",  # Czech
    "епоха": "epoch",  # Ukrainian
    "iteración": "iter",
    "iteracion": "iter",
    "iteração": "iter",
    "iteracao": "iter",
    "iterazione": "iter",
    "iteracja": "iter",
    "schritt": "step",
}
# A lower-case key of each word, for a word printed in another case than the entry's
_LOWER = {key.lower(): word.lower() for key, word in _WORDS.items()}
_PUNCT = str.maketrans({"：": ":", "，": ",", "、": ",", "；": ";", "（": "(", "）": ")", "　": " ", "＝": "="})
_TERM = re.compile("|".join(sorted(map(re.escape, _TERMS), key=len, reverse=True)))
_WORD = re.compile(
    r"(?<![^\W\d_])(?:%s)(?![^\W\d_])" % "|".join(sorted(map(re.escape, _LOWER), key=len, reverse=True)), re.IGNORECASE
)
# The stems a line must hold, in lower case, for a word of _WORDS to be there (most lines hold none):
# one branch a first letter, so that a position is tried against one stem's tail, not all of them
_ASCII_HINT = re.compile(
    r"a(?:ddestr|llenam|ntren|kurasi|cura|ccurat|prend|pprent)|c(?:ust|ost[eo])|dogrul|"
    r"e(?:r(?:d|t|lust)|ntren|ntrain|gitim|xactit|po(?:ca|ka|k)?\b)|genauig|itera[cz]|k(?:ay[ib]|erug|osten|oszt)|"
    r"lernrate|maliyet|nauwkeur|p(?:as\s*[:=]?\s*\d|och[ae]|ierd|elatih|rueba)|s(?:trata\b|chritt)|t(?:re(?:in|ning)|este\b|estow)|"
    r"v(?:erlies|alida[cdrsz]|alidier|alidatie|alidering)|walid"
)
# "pas 120 | pierdere 0.56": the step (Romanian, French), only as a counter right before its number
# ("n'améliore pas", French's negation, is no step)
_PAS = re.compile(r"(?<![^\W\d_])(?:pas|Pas|PAS)(?=\s*[:=]?\s*\d)")
# A letter beyond ASCII: without one, a line's other characters are symbols (bars, boxes, emoji)
_OTHER_LETTER = re.compile(r"(?![\x00-\x7f])[^\W\d_]")
# "Loss de train" (the loss of training, said the Romance way): read as "train Loss"
_OF = re.compile(
    r"\b(loss|acc)\s+(?:de|di|da|do|del|della|du|no|na|en|sur)\s+(?:la\s+|le\s+|o\s+|a\s+)?(train|val|test)\b",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s{2,}")
# "训练loss为0.52", "損失は0.52": "is" between a name and its value, read as the colon it stands for
_IS = re.compile(r"(?<=[A-Za-z_])\s*(?:为|為|は)\s*(?=[-+]?\.?\d)")
# A word of the script written against a loss term (光谱损失, 分类损失, 重建ロス) names one part of the
# loss: it is kept after the loss (``loss_光谱``), as an English log's ``loss_cls`` is, so that parts
# never read as one bare ``loss``. A particle before the term (学習の損失, 模型的损失) is no part.
_PART = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+$")
_GLUED = re.compile(r"(?<=\d)(?=[^\x00-\x7f])")  # "0.61です": a value written against the word after it
_ORDINAL = re.compile(r"第\s*(\d+)\s*(?:轮|個?epoch|个?epoch|回|次)")  # 第3轮: the third epoch
# "3번째 스텝의 손실": the third step's loss (Korean writes the ordinal before the counter's word)
_ORDINAL_KO = re.compile(r"(\d+)\s*번째\s*(스텝|에폭|에포크|반복)")


def english(text: str) -> str:
    """``text`` with the known terms of other languages in English (an ASCII line unchanged)."""
    if text.isascii():  # only the Latin-script words can be there
        return _words(text) if _ASCII_HINT.search(text.lower()) else text
    text = text.translate(_PUNCT)
    if _OTHER_LETTER.search(text) is None:  # no letter beyond ASCII (a tqdm bar's blocks): as an ASCII line
        text = _GLUED.sub(" ", text)
        return _words(text) if _ASCII_HINT.search(text.lower()) else text
    arabic = _ARABIC_SCRIPT.search(text) is not None
    if arabic:
        text = text.translate(_ARABIC_NORMAL)
    text = _ORDINAL.sub(r" epoch \1 ", text)
    text = _ORDINAL_KO.sub(r" \2 \1 ", text)
    text, n = _terms(text)
    text = _GLUED.sub(" ", _IS.sub(": ", text))
    if n:  # "训练损失: 4.6" -> " train  loss : 4.6" -> "train loss : 4.6": one name of two words
        text = _SPACES.sub(" ", text).strip()
    if arabic:
        text = _SPLIT_AFTER.sub(r"\2 \1", text)
    return _words(text)


def _words(text: str) -> str:
    """``text`` with each word of _WORDS in English, and a loss "of" a split read as the split's loss."""
    return _OF.sub(_of, _WORD.sub(_word, _PAS.sub(_step, text)))


def _step(m: re.Match[str]) -> str:
    return "Step" if m[0][:1].isupper() else "step"


def _word(m: re.Match[str]) -> str:
    """The English of one word of _WORDS, capitalised where the word printed is and its entry is not."""
    if m[0] in _WORDS:
        return _WORDS[m[0]]
    word = _LOWER.get(m[0].lower())
    if word is None:  # a case the lower-casing does not undo ("EĞİTİM"): left as printed
        return m[0]
    return word[:1].upper() + word[1:] if m[0][:1].isupper() else word


def _of(m: re.Match[str]) -> str:
    """``Loss de Train`` -> ``Train Loss``: the split first, in the case of the name it is of."""
    split = m[2].lower()
    return f"{split.capitalize() if m[1][:1].isupper() else split} {m[1]}"


def _terms(text: str) -> tuple[str, int]:
    """``text`` with each known term in English, a part's own word kept after its loss; and how many."""
    out: list[str] = []
    last = 0
    matches = list(_TERM.finditer(text))
    for m in matches:
        head, word = text[last : m.start()], _TERMS[m[0]]
        part = _PART.search(head) if word.endswith("loss") else None
        if part is not None:  # a particle alone (学習の損失: the train loss) is dropped
            own = part[0].rstrip("の的之")
            head, word = head[: part.start()], f"{word}_{own}" if own else word
        out += [head, f" {word} "]
        last = m.end()
    out.append(text[last:])
    return "".join(out), len(matches)
