from django.apps import AppConfig
from django.core.exceptions import ImproperlyConfigured


class ContextConfig(AppConfig):
    name = "context"
    verbose_name = "Event log and context bundles"

    def ready(self):
        """Read (or on first start create) the key that seals sensitivity-high content (elf_kernel.crypto), so a
        process with an unreadable key file refuses to start rather than fail on its first high row."""
        from elf_kernel.crypto import KeyFileError, cipher

        try:
            cipher()
        except KeyFileError as exc:
            raise ImproperlyConfigured(str(exc)) from None
