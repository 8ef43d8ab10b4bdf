"""Abstract bases for unmanaged models whose tables share columns."""

from __future__ import annotations

from enum import StrEnum

from django.db import models
from django.db.models.functions import Now
from pgvector.django import VectorField


class StoredVector(models.Model):
    """A vector row (note chunk, pooled note, doc chunk): source of truth for rebuilding Qdrant."""

    embedding_version = models.TextField()
    embedding_dim = models.IntegerField()
    vec = VectorField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        abstract = True


def choices_of(vocabulary: type[StrEnum]) -> list[tuple[str, str]]:
    """Django ``choices`` for a pure vocabulary enum (elf_domain.vocabulary), labelled as TextChoices would."""
    return [(member.value, member.name.replace("_", " ").title()) for member in vocabulary]
