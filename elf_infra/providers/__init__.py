"""Provider adapters (spec section 7): embeddings, rerank and the add_event extractor, local or over HTTP.

Build them with ``factory.build_embedding/build_rerank/build_extractor(cfg)``; program against the
Protocols in ``base``; catch ``errors.ProviderError``.
"""
