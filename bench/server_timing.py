"""Reading a response's Server-Timing header (RFC: ``name;dur=ms`` entries, comma-separated, any order).

The API's responses carry several entries (a search: ``search`` first, then one per step and ``total``), so
every bench reads the entry it wants by name instead of splitting on the first ``dur=``.
"""

from __future__ import annotations


def timings(headers) -> dict[str, float]:
    """The Server-Timing entries of a response, name -> dur (ms); entries without a dur are left out."""
    out = {}
    for entry in headers.get("Server-Timing", "").split(","):
        name, *params = (part.strip() for part in entry.split(";"))
        for key, _, value in (param.partition("=") for param in params):
            if key.strip() == "dur" and name:
                out[name] = float(value.strip().strip('"'))
    return out


def duration(headers, name: str) -> float:
    """The ``name`` entry's dur in ms; RuntimeError naming the entry and the header when it is missing."""
    found = timings(headers)
    if name not in found:
        raise RuntimeError(f"no {name};dur= entry in Server-Timing: {headers.get('Server-Timing')!r}")
    return found[name]


CACHE_HIT_MS = 0.05  # a search's embed step under this made no embedding call (a real one takes about 1 ms or more)


def vector_cached(steps: dict[str, float]) -> bool:
    """Whether a search's query vector came from the service's query-vector cache: its ``embed`` step (always
    sent by the search endpoint, 0 when no embedding call was made) took no time."""
    return "embed" in steps and steps["embed"] < CACHE_HIT_MS
