"""The crash tests' PostgreSQL server: the store tests' session fixture, reused."""

from tests.stores.conftest import postgres_server as postgres_server
