from django.apps import AppConfig


class DocsExtConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "docs_ext"
    verbose_name = "Doc extension"
