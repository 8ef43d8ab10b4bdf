"""Per-key rate limits (``[security.rate_limits]``): token buckets, whose rule is the Lua script below.

Every limited request takes one token from its caller's bucket (``requests_per_second`` refilled, ``burst`` held
at most) and, when it writes (any method but GET, HEAD or OPTIONS), one from the caller's write bucket too, if
the config has one. Redis runs the script atomically, so every API process and host shares the buckets.
"""

from __future__ import annotations

import hashlib
import json
import math

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
KEY_PREFIX = "elf:ratelimit:"

# KEYS: one bucket each; ARGV: rate (tokens per second) and burst of each bucket, in KEYS order. Replies 0 when
# every bucket held a whole token (one is then taken from each), else the milliseconds until all will (nothing is
# taken). The clock is Redis's own, so API hosts need not agree on the time. A bucket's hash expires once it
# would be full again: an idle caller costs nothing.
TOKEN_BUCKET_LUA = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local levels, wait = {}, 0
for i, key in ipairs(KEYS) do
  local per_ms, burst = tonumber(ARGV[2 * i - 1]) / 1000, tonumber(ARGV[2 * i])
  local saved = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(saved[1])
  if tokens == nil then
    tokens = burst
  else
    tokens = math.min(burst, tokens + math.max(0, now - tonumber(saved[2])) * per_ms)
  end
  levels[i] = tokens
  if tokens < 1 then
    wait = math.max(wait, math.ceil((1 - tokens) / per_ms))
  end
end
if wait > 0 then
  return wait
end
for i, key in ipairs(KEYS) do
  local per_ms, burst = tonumber(ARGV[2 * i - 1]) / 1000, tonumber(ARGV[2 * i])
  redis.call('HSET', key, 'tokens', levels[i] - 1, 'at', now)
  redis.call('PEXPIRE', key, math.ceil(burst / per_ms) + 1000)
end
return 0
"""


def is_write(method: str) -> bool:
    return method.upper() not in READ_METHODS


def caller_identity(token_id: str | None, context: tuple[str | None, str | None, str | None],
                    client_addr: str | None) -> str:
    """Whose bucket a request spends: its API key's id; without keys, its (tenant, project, agent) context
    headers when all three are present; else the client address."""
    if token_id is not None:
        return "key:" + token_id
    if all(context):
        return "context:" + json.dumps(list(context))  # unambiguous, whatever characters the ids hold
    return "addr:" + (client_addr or "unknown")


def bucket_keys(identity: str, *, write: bool) -> list[str]:
    """The Redis keys of a caller's buckets: all requests, then (for a write) its write bucket. The identity is
    hashed, so a header's length or characters never reach a key."""
    digest = hashlib.sha256(identity.encode("utf-8", errors="replace")).hexdigest()[:32]
    keys = [f"{KEY_PREFIX}{digest}:all"]
    if write:
        keys.append(f"{KEY_PREFIX}{digest}:write")
    return keys


def retry_after_seconds(wait_ms: int) -> int:
    """The Retry-After header: whole seconds, at least 1."""
    return max(1, math.ceil(wait_ms / 1000))
