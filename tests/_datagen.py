"""Generated datasets and locally trained tokenizers for the data/tokenizer tests."""

from __future__ import annotations

import json
import random
from pathlib import Path

WORDS = (
    "the cat dog sat ran on a mat log big small red blue green quick slow fox jumps over "
    "lazy model data train loss token answer question what is why how yes no"
).split()


def sentences(n: int, seed: int = 0, length: tuple[int, int] = (3, 9)) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(*length))) for _ in range(n)]


def write_jsonl(path: Path, rows: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return path


def chat_rows(n: int, seed: int = 0) -> list[dict]:
    qs, ans = sentences(n, seed), sentences(n, seed + 1)
    return [
        {"messages": [{"role": "user", "content": q}, {"role": "assistant", "content": a}]} for q, a in zip(qs, ans)
    ]


def make_tokenizer(
    folder: Path,
    *,
    bos: str | None = "<s>",
    eos: str | None = "</s>",
    pad: str | None = "<pad>",
    add_bos: bool = True,
    chat_template: str | None = None,
    model_max_length=2048,
    vocab_size: int | None = None,
    config: dict | None = None,
    generation: dict | None = None,
    extra_specials: tuple[str, ...] = (),
    in_vocab: bool = True,
) -> Path:
    """Train a WordLevel tokenizer on generated sentences and write the files a HF folder has."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers

    folder.mkdir(parents=True, exist_ok=True)
    specials = list(dict.fromkeys(t for t in ("<unk>", bos, eos, pad) if t)) if in_vocab else ["<unk>"]
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(sentences(300, seed=42), trainers.WordLevelTrainer(special_tokens=specials))
    if add_bos and bos and in_vocab:
        tok.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, tok.token_to_id(bos))]
        )
    tok.save(str(folder / "tokenizer.json"))
    cfg = {"model_max_length": model_max_length, "tokenizer_class": "PreTrainedTokenizerFast"}
    for role, text in (("bos", bos), ("eos", eos), ("pad", pad)):
        if text:
            cfg[f"{role}_token"] = text
    cfg["unk_token"] = "<unk>"
    if extra_specials:
        cfg["additional_special_tokens"] = list(extra_specials)
    if chat_template is not None:
        cfg["chat_template"] = chat_template
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    (folder / "special_tokens_map.json").write_text(json.dumps({k: v for k, v in cfg.items() if k.endswith("_token")}))
    size = tok.get_vocab_size(with_added_tokens=True)
    model_cfg = {
        "model_type": "llama",
        "vocab_size": vocab_size if vocab_size is not None else size,
        "max_position_embeddings": 2048,
        "eos_token_id": tok.token_to_id(eos) if eos else None,
        **(config or {}),
    }
    (folder / "config.json").write_text(json.dumps(model_cfg))
    if generation is not None:
        (folder / "generation_config.json").write_text(json.dumps(generation))
    return folder


CHAT_TEMPLATE = "{{ bos_token }}{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}{{ eos_token }}"
CHAT_TEMPLATE_NO_BOS = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
