"""A request field for a fraction 0..1 stored in a Postgres ``real`` (importance, confidence of a note).

JSON allows 1e-219, which ``FloatField(min_value=0, max_value=1)`` accepts, but ``real`` cannot hold a nonzero
value below its smallest normal number: Postgres refuses it as "out of range" (a 500). Such a fraction is 0
for every purpose here, so it is stored as 0.0.
"""

from __future__ import annotations

from rest_framework import serializers

REAL_MIN_NORMAL = 1.1754943508222875e-38  # float4's smallest normal number (C's FLT_MIN)


class FractionField(serializers.FloatField):
    def __init__(self, **kwargs):
        super().__init__(min_value=0.0, max_value=1.0, **kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        return 0.0 if value < REAL_MIN_NORMAL else value
