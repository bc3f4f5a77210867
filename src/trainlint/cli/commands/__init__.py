"""One module per sub-command; each exposes ``command`` (a click.Command)."""
