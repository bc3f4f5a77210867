"""Tokenizer-folder preflight from plain JSON (no transformers): special tokens, the
vocabulary, the chat template, max length and the model config's vocab size."""

from __future__ import annotations

from .folder import TOKENIZER_FILES, TokenizerFolder, judge_tokenizer, load_folder

__all__ = ["TOKENIZER_FILES", "TokenizerFolder", "judge_tokenizer", "load_folder"]
