"""Retrieval: the embedder, the chunk stores (embedded Chroma, Chroma server, in-memory) and the service."""
