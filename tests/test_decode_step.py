"""The reference Transformer generates one token at a time from its KV cache, as gpt-check's decode timing needs.

A token decoded at position n from a cache filled by the first n tokens gets the same logits as the whole
sequence of n + 1 tokens read at once: the decode step reads the cache it should, at the right positions.
"""

from __future__ import annotations

import pytest
import torch

from lessonkit.transformer import Transformer
from tests.test_models import TINY


@pytest.mark.parametrize("kind", sorted(TINY))
def test_a_decoded_token_sees_what_the_whole_sequence_sees(kind):
    torch.manual_seed(0)
    config = TINY[kind]
    model = Transformer(config, dtype=torch.float64).eval()
    ids = torch.randint(0, config.vocab_size, (2, 9))
    cache = model.new_cache(2, 12)
    model.prefill(ids[:, :8], cache)
    step = model.decode(ids[:, 8:9], cache, position=8)
    with torch.no_grad():
        whole = model(ids)
    torch.testing.assert_close(step, whole)
    after = model.decode(torch.zeros(2, 1, dtype=torch.long), cache, position=9)  # a second step works too
    assert after.shape == whole.shape


@pytest.mark.parametrize(
    ("ids", "position", "match"),
    [
        (torch.zeros(2, 2, dtype=torch.long), 3, r"ids must hold one token per sequence"),
        (torch.zeros(2, 1, dtype=torch.long), 0, r"position must be after the prompt and inside the cache"),
        (torch.zeros(2, 1, dtype=torch.long), 12, r"position must be after the prompt and inside the cache"),
    ],
)
def test_a_bad_decode_step_is_named(ids, position, match):
    model = Transformer(TINY["llama"]).eval()
    cache = model.new_cache(2, 12)
    with pytest.raises(ValueError, match=match):
        model.decode(ids, cache, position)
