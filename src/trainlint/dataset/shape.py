"""What a row means: its format (chat, prompt-completion, text, classification) and,
per row, the text segments a trainer would see (``(text, is_target)`` pairs) plus
the row-shape problems found on the way."""

from __future__ import annotations

from typing import Any

import msgspec

FORMATS = ("chat", "prompt-completion", "text", "classification")
CHAT_KEYS = ("messages", "conversations", "conversation", "chat", "dialog")
# (prompt fields, completion field), first match wins
PAIRS = (
    (("prompt",), "completion"),
    (("instruction", "input"), "output"),
    (("instruction", "input"), "response"),
    (("prompt",), "response"),
    (("question",), "answer"),
    (("query",), "response"),
    (("input",), "output"),
    (("prompt",), "chosen"),
    (("source",), "target"),
)
TEXT_KEYS = ("text", "content", "sentence", "document", "body", "review")
LABEL_KEYS = ("label", "labels", "target", "class", "category")
ROLE_ALIASES = {
    "human": "user",
    "gpt": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "observation": "tool",
    "function_call": "assistant",
    "ipython": "tool",
    "function": "tool",
    "developer": "system",
}
KNOWN_ROLES = {"system", "user", "assistant", "tool", *ROLE_ALIASES}
DATA_KEYS = {
    *CHAT_KEYS,
    *TEXT_KEYS,
    *LABEL_KEYS,
    "prompt",
    "completion",
    "instruction",
    "output",
    "response",
    "question",
    "answer",
    "query",
    "chosen",
    "rejected",
    "input",
}


class Shape(msgspec.Struct):
    format: str  # one of FORMATS or "unknown"
    prompt_keys: tuple[str, ...] = ()
    target_key: str | None = None
    chat_key: str | None = None
    text_key: str | None = None
    label_key: str | None = None


class RowShape(msgspec.Struct):
    """What one row contributed: segments to tokenize, a label, and problems found."""

    segments: list[tuple[str, bool]] = msgspec.field(default_factory=list)
    label: Any = None
    problems: list[tuple[str, str]] = msgspec.field(default_factory=list)  # (check, detail)


def detect(obj: dict[str, Any], forced: str | None = None) -> Shape:
    """The format of a row (``forced`` picks it; the fields are still found from the row)."""
    chat = next((k for k in CHAT_KEYS if isinstance(obj.get(k), list)), None)
    pair = next(((p, c) for p, c in PAIRS if p[0] in obj and c in obj), None)
    text = next((k for k in TEXT_KEYS if isinstance(obj.get(k), str)), None)
    label = next((k for k in LABEL_KEYS if k in obj and _scalar(obj[k])), None)
    if forced == "chat" or (forced is None and chat):
        return Shape("chat", chat_key=chat or "messages")
    if forced == "prompt-completion" or (forced is None and pair):
        p, c = pair or (("prompt",), "completion")
        return Shape("prompt-completion", prompt_keys=p, target_key=c)
    if forced == "classification" or (forced is None and text and label):
        return Shape("classification", text_key=text or "text", label_key=label or "label")
    if forced == "text" or (forced is None and text):
        return Shape("text", text_key=text or "text")
    return Shape("unknown")


def _scalar(v: Any) -> bool:
    return isinstance(v, (int, str, bool)) and not (isinstance(v, str) and len(v) > 64)


def content_text(content: Any) -> str | None:
    """A message's content as text (multimodal part lists joined); None when absent."""
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return "".join(p for p in parts if isinstance(p, str))
    return str(content)


def row_shape(shape: Shape, obj: dict[str, Any]) -> RowShape:
    out = RowShape()
    if shape.format == "chat":
        _chat(obj.get(shape.chat_key), out)
    elif shape.format == "prompt-completion":
        _pair(shape, obj, out)
    elif shape.format in ("text", "classification"):
        text = obj.get(shape.text_key)
        if isinstance(text, str):
            out.segments.append((text, True))
        if shape.label_key is not None:
            out.label = obj.get(shape.label_key)
    return out


def _field_text(value: Any) -> str | None:
    if isinstance(value, list):  # conversational prompt/completion: a list of messages
        texts = [content_text(m.get("content")) if isinstance(m, dict) else str(m) for m in value]
        return "\n".join(t for t in texts if t)
    return content_text(value)


def _pair(shape: Shape, obj: dict[str, Any], out: RowShape) -> None:
    prompt = "\n".join(t for t in (_field_text(obj.get(k)) for k in shape.prompt_keys) if t)
    target = _field_text(obj.get(shape.target_key))
    if prompt:
        out.segments.append((prompt, False))
    if target is None or not target.strip():
        out.problems.append(("empty-completion", shape.target_key or "completion"))
        target = ""
    out.segments.append((target, True))


def _chat(turns: Any, out: RowShape) -> None:
    if not isinstance(turns, list) or not turns:
        out.problems.append(("no-final-assistant", "no turns"))
        return
    roles: list[str] = []
    for i, msg in enumerate(turns):
        if not isinstance(msg, dict):
            out.problems.append(("unknown-role", f"turn {i + 1} is not an object"))
            roles.append("?")
            continue
        raw = msg.get("role", msg.get("from"))
        role = ROLE_ALIASES.get(raw, raw) if isinstance(raw, str) else None
        if raw not in KNOWN_ROLES:
            out.problems.append(("unknown-role", f"{raw!r}" if raw is not None else "missing role"))
        roles.append(role or "?")
        text = content_text(msg.get("content", msg.get("value")))
        if (text is None or not text.strip()) and not (msg.get("tool_calls") or msg.get("function_call")):
            out.problems.append(("empty-content", f"{role or raw} turn {i + 1}"))
        if text:
            out.segments.append((text, role == "assistant"))
    if any(check == "unknown-role" for check, _ in out.problems):
        if roles[-1] != "assistant":
            out.problems.append(("no-final-assistant", f"last turn is {roles[-1]}"))
        return  # the order of turns with unknown roles is not judged
    _order(roles, out)


def _order(roles: list[str], out: RowShape) -> None:
    if roles[-1] != "assistant":
        out.problems.append(("no-final-assistant", f"last turn is {roles[-1]}"))
    if "system" in roles[1:]:
        out.problems.append(("turn-order", f"system turn at position {roles.index('system', 1) + 1}"))
    talk = [r for r in roles if r in ("user", "assistant")]
    if talk and talk[0] != "user":
        out.problems.append(("turn-order", f"conversation starts with {talk[0]}"))
        return
    for a, b in zip(roles, roles[1:]):
        if a == b and a in ("user", "assistant"):
            out.problems.append(("turn-order", f"two {a} turns in a row"))
            return
