"""Tokenizer-folder preflight from plain JSON (no transformers): special tokens, the
vocabulary, the chat template, max length and the model config's vocab size."""
