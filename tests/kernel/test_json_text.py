"""elf_kernel.json_text: orjson on the request path, read back as json.dumps's text would be."""

from __future__ import annotations

import json
import math

from elf_kernel.json_text import json_text


def test_payloads_read_back_as_the_standard_encoders_text_does():
    payload = {"trace": {"trace_id": "48b8b4d3", "top_k": 5, "scores": [1.1299999924789585, 0.1, -0.0, 1e-12],
                         "query": "café ☕ \"quoted\" \\ back\nslash", "flags": [True, False, None]},
               "stages": [{"items": [], "stage_name": "recall"}], 3: "an int key", 2.5: "a float key"}
    assert json.loads(json_text(payload)) == json.loads(json.dumps(payload))
    assert isinstance(json_text(payload), str)


def test_a_nan_or_infinity_becomes_null_where_the_standard_encoder_writes_what_jsonb_refuses():
    assert json.loads(json_text({"x": math.nan, "y": math.inf})) == {"x": None, "y": None}
    assert json.dumps({"x": math.nan}) == '{"x": NaN}'
