from django.apps import AppConfig


class ElfProjectConfig(AppConfig):
    name = "elf_project"
    verbose_name = "ELF"

    def ready(self) -> None:
        # Every process that loads Django (API, worker, manage.py, tests) can send tasks to the broker.
        from elf_kernel.runtime import get_config

        from .celery_app import configure

        configure(get_config())
        # Extension points composed here, so the apps below never import the ones above them.
        from graph.services.facts import record_note_graph
        from memory.services.add_note.note_write_hooks import register_note_write_hook

        register_note_write_hook(record_note_graph)
