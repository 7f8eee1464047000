"""holokb.server: the HTTP face — SPARQL 1.1 Protocol, the JSON API, and the proof browser page.

>>> from holokb.server import ServerConfig, create_app
>>> # app = create_app(ServerConfig(db="kb.db", write_token="…")); run it with uvicorn or ``holokb serve``
"""
from .app import create_app
from .config import ServerConfig

__all__ = ["ServerConfig", "create_app"]
