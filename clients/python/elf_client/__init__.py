"""elf_client: a Python client of ELF, the evidence-linked fact memory service for LLM agents.

>>> from elf_client import ElfClient
>>> elf = ElfClient("http://127.0.0.1:8089", tenant_id="t1", project_id="p1", agent_id="a1")
>>> elf.add_note("The user prefers short answers.", type="preference", key="answer_style")

:class:`ElfClient` (blocking) and :class:`AsyncElfClient` (asyncio) have the same methods; every failure raises
:class:`ElfError`. ``elf_client.langgraph.ElfStore`` (extra ``elf-client[langgraph]``) is a LangGraph store on ELF.
"""

from ._async_client import AsyncElfClient, AsyncV1Api
from ._client import ElfClient, V1Api
from ._common import UNSET
from ._errors import ElfError
from ._retry import NO_RETRY, RetryPolicy
from ._transport import ClientConfig

__version__ = "0.1.0"

__all__ = ["AsyncElfClient", "AsyncV1Api", "ClientConfig", "ElfClient", "ElfError", "NO_RETRY", "RetryPolicy",
           "UNSET", "V1Api", "__version__"]
