"""The deprecated v1 API (elf-memory-service-v1.md sections 14 and 15) as an adapter over the use cases: each
route validates v1's shapes, fixes the caller's context from the ids in its body or query string
(``identity``), refuses CJK anywhere in the request (``english``), calls the use case its v2 successor calls
(memory and search services and selectors) and renders v1's response with v1's deprecation headers
(``deprecation``). It imports no app's API layer, and sits on the top floor, under the composition root that
mounts its routes (``urls``)."""
