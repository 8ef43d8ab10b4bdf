"""Django admin pieces every app's operator pages use: read-only model admins and small detail tables."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html, format_html_join


class ReadOnlyAdmin(admin.ModelAdmin):
    """Operators read here; writes go through the services, which keep each change, its audit rows and its
    outbox row in one transaction (editing rows in the admin would bypass that)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def html_table(headers, rows):
    """A small HTML table for read-only detail pages (values escaped by format_html_join)."""
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((c,) for c in row)),) for row in rows)
    )
    return format_html("<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", head, body)
