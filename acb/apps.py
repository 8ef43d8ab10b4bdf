from django.apps import AppConfig
from django.core.exceptions import ImproperlyConfigured


class AcbAppConfig(AppConfig):
    name = "acb"
    # The package was named context until issue 34. The app label stays "context": Django keys content types,
    # admin permissions, admin log entries and the admin's URLs (/admin/context/...) by the label, so a new label
    # would orphan every operator's granted permissions. Tables are named in each model's Meta (acb_*), and the
    # app has no Django migrations (sql/ is the schema), so neither depends on the label.
    label = "context"
    verbose_name = "Event log and context bundles"

    def ready(self):
        """Read (or on first start create) the key that seals sensitivity-high content (elf_kernel.crypto), so a
        process with an unreadable key file refuses to start rather than fail on its first high row."""
        from elf_kernel.crypto import KeyFileError, cipher

        try:
            cipher()
        except KeyFileError as exc:
            raise ImproperlyConfigured(str(exc)) from None
