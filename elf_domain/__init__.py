"""ELF's pure shared rules (floor 1): no Django, no I/O, no import of any ELF app.

Every app and the config loader build on these; import-linter (``.importlinter``) holds the line.
"""
