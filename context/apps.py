from django.apps import AppConfig


class ContextConfig(AppConfig):
    name = "context"
    verbose_name = "Event log and context bundles"
