"""Console logs (stdout captured to a file): line splitting, metric patterns, stateful formats, crashes."""
