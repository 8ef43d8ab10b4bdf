"""Embedded Qdrant server: one process owns the qdrant-edge shards and serves the subset of Qdrant's
REST API that qdrant-client uses, so a real Qdrant server can replace it with no app change.

Run: python -m elf_infra.qdrant_server --host 127.0.0.1 --port 6343 --data-dir var/stack/qdrant
"""
