from django.apps import AppConfig


class ElfProjectConfig(AppConfig):
    name = "elf_project"
    verbose_name = "ELF"
