"""Dataset preflight: stream the rows of a training dataset once, collect what the
data rules need in bounded memory, then judge with ``run_rules("dataset", ...)``.

Formats: JSONL, JSON (an array of objects, streamed), CSV/TSV, Parquet and
Hugging Face ``save_to_disk`` folders (both need pyarrow, imported lazily).
Token statistics need the ``tokenizers`` library (imported lazily) and a
``tokenizer.json``; everything else runs on the standard library and numpy.
"""
