"""Where the benchmark and evaluation commands may send requests: loopback only."""

from __future__ import annotations

import argparse
import ipaddress

import requests


def loopback_base_url(bind: str) -> str:
    """``http://host:port`` for a ``service.http_bind``; refuses anything but a loopback address."""
    host, _, port = bind.rpartition(":")
    host = host.strip("[]")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback or not port.isdigit():
        raise ValueError(
            f"service.http_bind {bind!r} is not a loopback address; elf-eval and elf-bench only target loopback"
        )
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def live_base_url(ap: argparse.ArgumentParser, bind: str) -> str:
    """The running service's base URL for ``bind`` (``ap.error`` when it is not loopback), once /health answers."""
    try:
        base = loopback_base_url(bind)
    except ValueError as exc:
        ap.error(str(exc))
    requests.get(base + "/health", timeout=10).raise_for_status()
    return base
