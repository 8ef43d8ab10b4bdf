"""Entities of one tenant/project, found by normalised canonical name or alias, created when new."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from ..domain.rules import normalize
from ..models import GraphEntity, GraphEntityAlias


def entity_name(entity: dict) -> str | None:
    """The name an entity is known by: its canonical, else its first non-blank alias; None when it has none."""
    for name in [entity.get("canonical"), *(entity.get("aliases") or [])]:
        if name and normalize(name):
            return name
    return None


def upsert_entity(*, tenant_id: str, project_id: str, entity: dict) -> GraphEntity | None:
    """The entity named by ``entity`` ({canonical, kind, aliases}) in this tenant/project: matched by canonical
    name, else by alias, else created. Its kind is set when it had none; new aliases are added. None when the
    entity carries no name at all."""
    name = entity_name(entity)
    if name is None:
        return None
    norm = normalize(name)
    aliases = {normalize(a): a.strip() for a in [entity.get("canonical"), *(entity.get("aliases") or [])]
               if a and normalize(a)}
    found = _find(tenant_id, project_id, norm, list(aliases))
    if found is None:
        found = _create(tenant_id, project_id, name.strip(), norm, entity.get("kind"))
    elif entity.get("kind") and not found.kind:
        GraphEntity.objects.filter(entity_id=found.entity_id).update(kind=entity["kind"], updated_at=timezone.now())
        found.kind = entity["kind"]
    known = set(GraphEntityAlias.objects.filter(entity=found).values_list("alias_norm", flat=True))
    for alias_norm, alias in aliases.items():
        if alias_norm != found.canonical_norm and alias_norm not in known:
            _add_alias(found, alias, alias_norm)
    return found


def _find(tenant_id: str, project_id: str, norm: str, alias_norms: list[str]) -> GraphEntity | None:
    scoped = GraphEntity.objects.filter(tenant_id=tenant_id, project_id=project_id)
    by_name = scoped.filter(canonical_norm=norm).first()
    if by_name is not None:
        return by_name
    return scoped.filter(aliases__alias_norm__in=[norm, *alias_norms]).order_by("created_at", "entity_id").first()


def _create(tenant_id: str, project_id: str, canonical: str, norm: str, kind: str | None) -> GraphEntity:
    try:
        with transaction.atomic():  # a savepoint: a concurrent writer may have created it first
            return GraphEntity.objects.create(tenant_id=tenant_id, project_id=project_id, canonical=canonical,
                                              canonical_norm=norm, kind=kind)
    except IntegrityError:
        return GraphEntity.objects.get(tenant_id=tenant_id, project_id=project_id, canonical_norm=norm)


def _add_alias(entity: GraphEntity, alias: str, alias_norm: str) -> None:
    try:
        with transaction.atomic():
            GraphEntityAlias.objects.create(entity=entity, alias=alias, alias_norm=alias_norm)
    except IntegrityError:
        pass  # added by a concurrent writer
