from django.apps import AppConfig


class CoreMemoryConfig(AppConfig):
    name = "core_memory"
    verbose_name = "Core memory (PROFILE, SESSION, POLICY)"
