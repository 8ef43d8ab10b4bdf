"""Fallback urlconf for a request that arrived on neither configured listener: nothing answers."""

urlpatterns: list = []

handler404 = "elf_kernel.errors.json_404"
handler500 = "elf_kernel.errors.json_500"
