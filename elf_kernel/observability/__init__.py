"""Observability: JSON logs carrying a request id (also into Celery tasks) and Prometheus metrics."""
