"""Read a tokenizer folder's JSON files into one :class:`TokenizerFolder` subject."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ..safeio import JSONLimit, json_error, load_json_file, read_str
from ..tokenizer.embedding import embedding_rows

if TYPE_CHECKING:
    from ..config import Settings
    from ..verdict import Report

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.json",
    "merges.txt",
    "tokenizer.model",
    "chat_template.jinja",
    "chat_template.json",
    "vocab.txt",
)
JSON_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "generation_config.json",
    "config.json",
    "added_tokens.json",
    "vocab.json",
    "chat_template.json",
)
ROLES = ("bos", "eos", "pad", "unk")


class NotATokenizer(Exception):
    pass


class TokenizerFolder(msgspec.Struct):
    path: Path
    files: dict[str, Any] = msgspec.field(default_factory=dict)  # parsed JSON per file name
    broken: dict[str, str] = msgspec.field(default_factory=dict)  # file name -> parser message
    beyond_limits: dict[str, str] = msgspec.field(default_factory=dict)  # file name -> why it was not parsed (safeio)
    specials: dict[str, str] = msgspec.field(default_factory=dict)  # bos/eos/pad/unk -> token text
    special_source: dict[str, str] = msgspec.field(default_factory=dict)
    additional: list[str] = msgspec.field(default_factory=list)
    vocab: dict[str, int] | None = None
    chat_template: str | None = None
    add_bos: bool | None = None
    model_max_length: Any = None
    config: dict[str, Any] = msgspec.field(default_factory=dict)
    generation: dict[str, Any] = msgspec.field(default_factory=dict)
    embedding: tuple[int, str, str] | None = None  # (rows, tensor, file) from safetensors headers

    def token_id(self, role: str) -> int | None:
        tok = self.specials.get(role)
        return None if tok is None or self.vocab is None else self.vocab.get(tok)

    def config_ids(self, key: str) -> dict[str, list[int]]:
        """``key`` (e.g. eos_token_id) as config.json and generation_config.json give it."""
        out: dict[str, list[int]] = {}
        for name, doc in (("config.json", self.config), ("generation_config.json", self.generation)):
            value = doc.get(key)
            given = value if isinstance(value, list) else [value]
            ids = [i for i in given if isinstance(i, int) and not isinstance(i, bool)]
            if ids:
                out[name] = ids
        return out

    @property
    def vocab_size(self) -> int | None:
        return max(self.vocab.values()) + 1 if self.vocab else None


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _token_text(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) and value else None


def _read_json(folder: Path, tf: TokenizerFolder) -> None:
    for name in JSON_FILES:
        path = folder / name
        if not path.is_file():
            continue
        try:
            doc = load_json_file(path)
        except JSONLimit as exc:
            tf.beyond_limits[name] = str(exc)
            continue
        except json.JSONDecodeError as exc:
            tf.broken[name] = json_error(exc)
            continue
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            tf.broken[name] = str(exc).splitlines()[0]
            continue
        if isinstance(doc, dict):
            tf.files[name] = doc
        else:
            tf.broken[name] = f"a JSON {type(doc).__name__}, expected an object"


def _specials(tf: TokenizerFolder) -> None:
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        doc = tf.files.get(name, {})
        for role in ROLES:
            text = _token_text(doc.get(f"{role}_token"))
            if text is not None and role not in tf.specials:
                tf.specials[role] = text
                tf.special_source[role] = name
        for extra in _l(doc.get("additional_special_tokens")):
            text = _token_text(extra)
            if text and text not in tf.additional:
                tf.additional.append(text)


def _vocab(tf: TokenizerFolder) -> None:
    vocab: dict[str, int] = {}
    model = _d(tf.files.get("tokenizer.json", {}).get("model"))
    raw = model.get("vocab")
    if isinstance(raw, dict):
        vocab.update({k: v for k, v in raw.items() if isinstance(v, int)})
    elif isinstance(raw, list):  # Unigram: [[piece, score], ...]
        vocab.update({p[0]: i for i, p in enumerate(raw) if isinstance(p, list) and p and isinstance(p[0], str)})
    elif tf.files.get("vocab.json"):
        vocab.update({k: v for k, v in tf.files["vocab.json"].items() if isinstance(v, int)})
    for tok in _l(tf.files.get("tokenizer.json", {}).get("added_tokens")):
        if isinstance(tok, dict) and isinstance(tok.get("id"), int) and isinstance(tok.get("content"), str):
            vocab[tok["content"]] = tok["id"]
    for k, v in _d(tf.files.get("added_tokens.json")).items():
        if isinstance(v, int):
            vocab[k] = v
    for k, v in _d(tf.files.get("tokenizer_config.json", {}).get("added_tokens_decoder")).items():
        if isinstance(v, dict) and isinstance(v.get("content"), str) and str(k).isdigit():
            vocab[v["content"]] = int(k)
    tf.vocab = vocab or None


def _template(folder: Path, tf: TokenizerFolder) -> None:
    tpl = tf.files.get("tokenizer_config.json", {}).get("chat_template")
    if tpl is None and (folder / "chat_template.jinja").is_file():
        tpl = read_str(folder / "chat_template.jinja")
    if tpl is None:
        tpl = _d(tf.files.get("chat_template.json")).get("chat_template")
    if isinstance(tpl, list):  # named templates: [{"name": "default", "template": "..."}]
        tpl = "\n".join(t.get("template", "") for t in tpl if isinstance(t, dict))
    tf.chat_template = tpl if isinstance(tpl, str) and tpl.strip() else None


def _adds_bos(tf: TokenizerFolder) -> bool | None:
    flag = tf.files.get("tokenizer_config.json", {}).get("add_bos_token")
    if isinstance(flag, bool):
        return flag
    bos = tf.specials.get("bos")
    post = tf.files.get("tokenizer.json", {}).get("post_processor")
    if not isinstance(post, dict):
        return None if "tokenizer.json" not in tf.files else False
    procs = _l(post.get("processors")) if post.get("type") == "Sequence" else [post]
    for proc in procs:
        single = proc.get("single") if isinstance(proc, dict) else None
        if (
            isinstance(single, list)
            and single
            and isinstance(single[0], dict)
            and isinstance(single[0].get("SpecialToken"), dict)
        ):
            return bos is None or single[0]["SpecialToken"].get("id") == bos
    return False


def load_folder(folder: Path) -> TokenizerFolder:
    if not folder.exists():
        raise NotATokenizer("no such folder")
    if not folder.is_dir():
        raise NotATokenizer("not a folder (pass the folder that holds tokenizer.json)")
    if not any((folder / n).is_file() for n in TOKENIZER_FILES):
        raise NotATokenizer("no tokenizer files (tokenizer.json, tokenizer_config.json, ...) in this folder")
    tf = TokenizerFolder(folder)
    _read_json(folder, tf)
    tf.config = tf.files.get("config.json", {})
    if isinstance(tf.config.get("text_config"), dict):  # multimodal configs nest the language model's
        tf.config = {**tf.config, **tf.config["text_config"]}
    tf.generation = _d(tf.files.get("generation_config.json"))
    _specials(tf)
    _vocab(tf)
    _template(folder, tf)
    tf.add_bos = _adds_bos(tf)
    tf.model_max_length = tf.files.get("tokenizer_config.json", {}).get("model_max_length")
    tf.embedding = embedding_rows(folder)
    return tf


def judge_tokenizer(folder: Path, settings: Settings | None = None, data_format: str | None = None) -> Report:
    from ..engine import run_rules
    from ..verdict import Report

    report = Report(source=str(folder), kind="tokenizer", format="hf-tokenizer")
    try:
        tf = load_folder(Path(folder))
    except NotATokenizer as exc:
        report.unjudged = str(exc)
        return report
    except (OSError, TypeError, AttributeError, ValueError, KeyError) as exc:  # a structure we do not expect
        report.unjudged = f"cannot read the tokenizer files: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        return report
    report.files = [
        str(folder / n) for n in (*TOKENIZER_FILES, "config.json", "generation_config.json") if (folder / n).is_file()
    ]
    if tf.beyond_limits:  # a file not parsed (too deep, too many values): the tokenizer is not judged
        report.unjudged = "; ".join(f"{n}: {why}" for n, why in sorted(tf.beyond_limits.items()))
        return report
    report.summary = {
        "vocab_size": tf.vocab_size,
        "specials": dict(tf.specials),
        "chat_template": tf.chat_template is not None,
        "adds_bos": tf.add_bos,
    }
    return run_rules("tokenizer", tf, report, settings, {"data_format": data_format})
