"""A small, plain-PyTorch transformer built from a ModelConfig, to measure memory against (lesson 05).

`Transformer(config)` has exactly the tensors `config.tensors()` lists, so its parameter count is
the config's. Its layers are the usual ones (pre-norm attention with rotary or learned positions,
grouped-query attention, a gated or plain MLP) written with PyTorch's standard operations, so the
memory it uses is what a typical implementation uses. `add_lora` turns it into a LoRA model the
way the PEFT library does. Built on the meta device it costs no memory at all, whatever its size.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from lessonkit.memparts import LORA_TARGETS
from lessonkit.models import ModelConfig


class RMSNorm(nn.Module):
    """RMSNorm as Hugging Face's Llama writes it: computed in fp32, cast back, then scaled (lesson 05)."""

    def __init__(self, size: int, eps: float = 1e-5, **factory) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size, **factory))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.to(torch.float32)
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


def _norm(config: ModelConfig, **factory) -> nn.Module:
    if config.norm == "layernorm":
        return nn.LayerNorm(config.hidden_size, **factory)
    return RMSNorm(config.hidden_size, **factory)


def _activation(name: str, x: torch.Tensor) -> torch.Tensor:
    if name == "silu":
        return F.silu(x)
    if name == "gelu_new":  # Hugging Face's NewGELUActivation (GPT-2), in Python ops as it is written there
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    return F.gelu(x, approximate="tanh" if name == "gelu_tanh" else "none")


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


# scaled_dot_product_attention takes enable_gqa from torch 2.5; lessonkit supports torch 2.3 and up.
_SDPA_GROUPS = tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 5)


class Attention(nn.Module):
    """Causal self-attention with grouped-query heads, through F.scaled_dot_product_attention (lesson 05)."""

    def __init__(self, config: ModelConfig, **factory) -> None:
        super().__init__()
        h, c = config.hidden_size, config
        self.q = nn.Linear(h, c.q_dim, bias=c.qkv_bias, **factory)
        self.k = nn.Linear(h, c.kv_dim, bias=c.qkv_bias, **factory)
        self.v = nn.Linear(h, c.kv_dim, bias=c.qkv_bias, **factory)
        self.o = nn.Linear(c.q_dim, h, bias=c.out_bias, **factory)
        self.heads, self.kv_heads, self.head_dim = c.num_heads, c.num_kv_heads, c.head_dim

    def forward(
        self, x: torch.Tensor, rope: tuple | None, cache: torch.Tensor | None = None, start: int = 0
    ) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        if rope is not None:
            q, k = _rotate(q, *rope), _rotate(k, *rope)
        if cache is not None:  # inference: keep this layer's keys and values for the tokens to come
            cache[0, :, :, start : start + s] = k
            cache[1, :, :, start : start + s] = v
            if start:  # one new token (decode) attends to every token so far, its own included
                k, v = cache[0, :, :, : start + s], cache[1, :, :, : start + s]
        causal = start == 0  # a decoded token may see all of the cache: no mask
        s = k.shape[2]
        grouped = self.kv_heads != self.heads  # each key/value head is shared by a group of query heads
        if grouped and _SDPA_GROUPS:  # torch 2.5+: attention reads the shared heads, no copies (attention="sdpa")
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        else:  # older torch: repeat each key/value head for its group (attention="sdpa_repeat_kv")
            if grouped:
                group = self.heads // self.kv_heads
                k = k[:, :, None].expand(b, self.kv_heads, group, s, self.head_dim).reshape(b, self.heads, s, -1)
                v = v[:, :, None].expand(b, self.kv_heads, group, s, self.head_dim).reshape(b, self.heads, s, -1)
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return self.o(out.transpose(1, 2).reshape(b, q.shape[2], -1))


class MLP(nn.Module):
    """down(act(gate(x)) * up(x)) when gated (Llama), down(act(up(x))) when plain (GPT-2) (lesson 05)."""

    def __init__(self, config: ModelConfig, **factory) -> None:
        super().__init__()
        h, f, bias = config.hidden_size, config.intermediate_size, config.mlp_bias
        self.gated, self.act = config.mlp == "gated", config.activation
        if self.gated:
            self.gate = nn.Linear(h, f, bias=bias, **factory)
        self.up = nn.Linear(h, f, bias=bias, **factory)
        self.down = nn.Linear(f, h, bias=bias, **factory)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.gated:
            return self.down(_activation(self.act, self.gate(x)) * self.up(x))
        return self.down(_activation(self.act, self.up(x)))


class Layer(nn.Module):
    """One pre-norm transformer layer: x + attn(norm(x)), then x + mlp(norm(x)) (lesson 05)."""

    def __init__(self, config: ModelConfig, **factory) -> None:
        super().__init__()
        self.attn_norm = _norm(config, **factory)
        self.attn = Attention(config, **factory)
        if config.norms_per_layer == 4:
            self.attn_post_norm = _norm(config, **factory)
        self.mlp_norm = _norm(config, **factory)
        self.mlp = MLP(config, **factory)
        if config.norms_per_layer == 4:
            self.mlp_post_norm = _norm(config, **factory)
        self.post_norms = config.norms_per_layer == 4
        self.dropout = config.residual_dropout

    def forward(
        self, x: torch.Tensor, rope: tuple | None, cache: torch.Tensor | None = None, start: int = 0
    ) -> torch.Tensor:
        out = self.attn(self.attn_norm(x), rope, cache, start)
        out = F.dropout(out, self.dropout, self.training) if self.dropout else out
        x = x + (self.attn_post_norm(out) if self.post_norms else out)
        del out  # free the attention output before the MLP runs (autograd keeps what it needs)
        out = self.mlp(self.mlp_norm(x))
        out = F.dropout(out, self.dropout, self.training) if self.dropout else out
        return x + (self.mlp_post_norm(out) if self.post_norms else out)


class Transformer(nn.Module):
    """A decoder-only language model with exactly the tensors of `config.tensors()` (lesson 05).

    `model(ids, labels)` returns the mean cross-entropy loss, computed in fp32 as Hugging Face does;
    `model(ids)` returns the logits of the last position only, as text generation needs.
    Set `model.checkpointing = True` to recompute each layer in the backward pass instead of
    keeping its activations (activation checkpointing). The config's embedding and residual dropout
    (GPT-2's config.json: 0.1) apply in training mode; attention dropout is not applied (fused
    attention keeps no mask for it either).
    """

    def __init__(self, config: ModelConfig, *, dtype: torch.dtype = torch.float32, device=None) -> None:
        super().__init__()
        unusual = config.is_mla or config.attention_sinks or config.extra_params or config.lm_head_bias
        if config.is_moe or config.qk_norm or unusual:
            raise ValueError(
                f"config must describe a dense model without QK-norm: this reference Transformer builds neither "
                f"experts nor QK-norm (nor latent attention, attention sinks, a head bias or a vision tower), got "
                f"{config.name!r} (num_experts={config.num_experts}, qk_norm={config.qk_norm})"
            )
        factory = {"dtype": dtype, "device": device}
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size, **factory)
        if config.learned_positions:
            self.pos_embed = nn.Embedding(config.learned_positions, config.hidden_size, **factory)
        self.layers = nn.ModuleList(Layer(config, **factory) for _ in range(config.num_layers))
        self.final_norm = _norm(config, **factory)
        if not config.tied_embeddings:
            self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False, **factory)
        self.checkpointing = False

    def _rope(self, s: int, x: torch.Tensor, start: int = 0) -> tuple | None:
        if self.config.learned_positions:
            return None
        d = self.config.head_dim
        inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
        angles = torch.outer(torch.arange(start, start + s, device=x.device, dtype=torch.float32), inv)
        angles = torch.cat((angles, angles), dim=-1)
        return angles.cos().to(x.dtype), angles.sin().to(x.dtype)

    def hidden(self, ids: torch.Tensor, cache: torch.Tensor | None = None, start: int = 0) -> torch.Tensor:
        """The final hidden states (after the last norm) for token ids of shape (batch, seq) at positions
        start, start + 1, ... (lesson 05)."""
        x = self.embed(ids)
        if self.config.learned_positions:
            x = x + self.pos_embed(torch.arange(start, start + ids.shape[1], device=ids.device))
        if self.config.embed_dropout:
            x = F.dropout(x, self.config.embed_dropout, self.training)
        rope = self._rope(ids.shape[1], x, start)
        for i, layer in enumerate(self.layers):
            layer_cache = None if cache is None else cache[:, i]
            if self.checkpointing and torch.is_grad_enabled():
                x = checkpoint(layer, x, rope, layer_cache, start, use_reentrant=False)
            else:
                x = layer(x, rope, layer_cache, start)
        return self.final_norm(x)

    def head(self, x: torch.Tensor) -> torch.Tensor:
        """Logits from hidden states: the output head, or the embedding matrix when tied (lesson 05)."""
        weight = self.embed.weight if self.config.tied_embeddings else self.lm_head.weight
        return F.linear(x, weight)

    def forward(self, ids: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:
        x = self.hidden(ids)
        if labels is None:
            return self.head(x[:, -1:])
        logits = self.head(x).float()  # Hugging Face upcasts logits to fp32 for the loss
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.reshape(-1))

    @torch.no_grad()
    def prefill(self, ids: torch.Tensor, cache: torch.Tensor) -> torch.Tensor:
        """Read a prompt, fill `cache` with its keys and values, return the last position's logits (lesson 05)."""
        return self.head(self.hidden(ids, cache)[:, -1:])

    @torch.no_grad()
    def decode(self, ids: torch.Tensor, cache: torch.Tensor, position: int) -> torch.Tensor:
        """One generated token per sequence (ids of shape (batch, 1)) at `position`: it reads every weight and the
        cache's first `position` tokens, adds its own keys and values, and returns its logits (gpu-check)."""
        if ids.dim() != 2 or ids.shape[1] != 1:
            raise ValueError(f"ids must hold one token per sequence, shape (batch, 1), got {tuple(ids.shape)}")
        if not 0 < position < cache.shape[4]:
            raise ValueError(
                f"position must be after the prompt and inside the cache (1 to {cache.shape[4] - 1}), got {position}"
            )
        return self.head(self.hidden(ids, cache, start=position))

    def new_cache(self, batch: int, tokens: int, dtype: torch.dtype | None = None) -> torch.Tensor:
        """An empty KV cache: (key/value, layer, batch, kv_heads, tokens, head_dim) (lesson 05)."""
        c, weight = self.config, self.embed.weight
        shape = (2, c.num_layers, batch, c.num_kv_heads, tokens, c.head_dim)
        return torch.empty(shape, dtype=dtype or weight.dtype, device=weight.device)


# --- LoRA ------------------------------------------------------------------------------------------
# The projections add_lora can wrap, LORA_TARGETS, are defined once in lessonkit.memparts.


class LoRALinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update B(A(x)), as PEFT's LoRA layer works (lesson 05).

    Like PEFT, the adapter weights are kept in `adapter_dtype` (fp32 by default) and the input is
    cast to that dtype before it enters them; B starts at zero so the model starts unchanged.
    """

    def __init__(self, base: nn.Linear, rank: int, alpha: float = 16.0, adapter_dtype=torch.float32) -> None:
        super().__init__()
        self.base = base
        base.requires_grad_(False)
        device = base.weight.device
        self.lora_a = nn.Linear(base.in_features, rank, bias=False, dtype=adapter_dtype, device=device)
        self.lora_b = nn.Linear(rank, base.out_features, bias=False, dtype=adapter_dtype, device=device)
        if device.type != "meta":
            nn.init.kaiming_uniform_(self.lora_a.weight, a=math.sqrt(5))
            nn.init.zeros_(self.lora_b.weight)
        self.scaling = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base(x)
        update = self.lora_b(self.lora_a(x.to(self.lora_a.weight.dtype))) * self.scaling
        return out + update.to(out.dtype)


def add_lora(model: Transformer, rank: int, targets: tuple[str, ...] = LORA_TARGETS, **kwargs) -> Transformer:
    """Freeze `model` and wrap the named projections of every layer in LoRALinear (lesson 05)."""
    unknown = set(targets) - set(LORA_TARGETS)
    if unknown or not targets:
        raise ValueError(f"targets must be a non-empty subset of {list(LORA_TARGETS)}, got {list(targets)!r}")
    model.requires_grad_(False)
    for layer in model.layers:
        for parent in (layer.attn, layer.mlp):
            for name in targets:
                base = getattr(parent, name, None)
                if isinstance(base, nn.Linear):
                    setattr(parent, name, LoRALinear(base, rank, **kwargs))
    return model
