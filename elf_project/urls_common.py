"""Routes every listener answers: health, its own OpenAPI schema and a docs page."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

from .health import HealthView


def common_patterns(urlconf: str) -> list:
    return [
        path("health", HealthView.as_view(), name="health"),
        path("openapi.json", SpectacularJSONAPIView.as_view(urlconf=urlconf), name="openapi"),
        path("docs/", SpectacularSwaggerView.as_view(url_name="openapi"), name="docs"),
    ]
