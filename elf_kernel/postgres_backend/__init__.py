"""Django's PostgreSQL backend with the API pool's hand-out check of ``elf_kernel.db_pool`` (settings ENGINE)."""
