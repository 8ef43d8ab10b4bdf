"""The server's one error type, and how qdrant-edge failures map onto it."""

from __future__ import annotations

# qdrant-edge raises plain exceptions carrying the engine's OperationError text. Like the Qdrant server,
# answer 400 for all of them (wrong dimension, unknown vector name, missing order_by index, ...) except the
# engine's own failures.
_SERVER_ERROR_PREFIXES = (
    "Service runtime error",
    "Service internal error",
    "Inconsistent storage",
    "Out of memory",
    "Operation cancelled",
)


class ApiError(Exception):
    """An error answered with an HTTP status and Qdrant's error body `{"status": {"error": ...}}`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def bad_request(message: str) -> ApiError:
    """400 with Qdrant's "Wrong input" wording."""
    return ApiError(400, f"Wrong input: {message}")


def unsupported(what: str) -> ApiError:
    """400 for a valid Qdrant request this embedded server does not implement."""
    return ApiError(400, f"Wrong input: {what} is not supported by the embedded Qdrant server")


def collection_not_found(name: str) -> ApiError:
    """404 worded as Qdrant words it."""
    return ApiError(404, f"Not found: Collection `{name}` doesn't exist!")


def edge_error(exc: Exception) -> ApiError:
    """Map an exception raised by qdrant-edge to 400 (bad request data) or 500 (engine failure)."""
    text = str(exc)
    if text.startswith(_SERVER_ERROR_PREFIXES):
        return ApiError(500, f"Service internal error: {text}")
    return bad_request(text)
