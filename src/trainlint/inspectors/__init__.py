"""Inspectors: each module registers the kinds of input it recognises and judges."""
