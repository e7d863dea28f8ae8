"""The weight tensors of a ModelConfig, one by one or grouped by kind, for its counts (lessons 05, 08).

`TensorListing` is the half of lessonkit.modelshape.ModelConfig that lists tensors: `layer_groups`
(one layer, all experts as one entry), `layer_tensors` (one layer, expert by expert, as a module
holds them), `tensors` (the whole model, one by one) and `groups` (the whole model, each kind of
tensor once with how many there are). The names are lessonkit.transformer's module names.
"""

from __future__ import annotations

from typing import Any

Group = tuple[str, tuple[int, ...], int]  # (name, shape, how many such tensors)


class TensorListing:
    """The tensor lists of a model shape; ModelConfig's fields say what they hold (lessons 05, 08)."""

    # The fields this reads, declared on ModelConfig.
    hidden_size: int
    num_layers: int
    num_heads: int
    head_dim: int
    num_experts: int
    norm: str
    mlp: str
    norms_per_layer: int

    def _attention(self, p: str, linear: Any, vector: Any) -> None:
        h = self.hidden_size
        if self.is_mla:
            qk, rope, v_dim = self.head_dim, self.qk_rope_head_dim, self.v_head_dim
            if self.q_lora_rank:
                linear(p + "attn.q_a", self.q_lora_rank, h, self.qkv_bias)
                vector(p + "attn.q_a_norm.weight", self.q_lora_rank)
                linear(p + "attn.q_b", self.num_heads * qk, self.q_lora_rank, False)
            else:
                linear(p + "attn.q", self.num_heads * qk, h, False)
            linear(p + "attn.kv_a", self.kv_lora_rank + rope, h, self.qkv_bias)
            vector(p + "attn.kv_a_norm.weight", self.kv_lora_rank)
            linear(p + "attn.kv_b", self.num_heads * (qk - rope + v_dim), self.kv_lora_rank, False)
            linear(p + "attn.o", h, self.num_heads * v_dim, self.out_bias)
            return
        linear(p + "attn.q", self.q_dim, h, self.qkv_bias)
        linear(p + "attn.k", self.kv_dim, h, self.qkv_bias)
        linear(p + "attn.v", self.kv_dim, h, self.qkv_bias)
        linear(p + "attn.o", h, self.q_dim, self.out_bias)
        if self.qk_norm:
            vector(p + "attn.q_norm.weight", self.head_dim)
            vector(p + "attn.k_norm.weight", self.head_dim)
        if self.attention_sinks:
            vector(p + "attn.sinks", self.num_heads)

    def layer_groups(self, i: int) -> list[Group]:
        """Name, shape and count of every weight tensor in layer `i`, all experts as one entry each (lesson 08)."""
        h, p = self.hidden_size, f"layers.{i}."
        out: list[Group] = []

        def vector(name: str, n: int, count: int = 1) -> None:
            out.append((name, (n,), count))

        def norm(name: str) -> None:
            vector(p + name + ".weight", h)
            if self.norm == "layernorm":
                vector(p + name + ".bias", h)

        def linear(name: str, n_out: int, n_in: int, bias: bool, count: int = 1) -> None:
            out.append((name + ".weight", (n_out, n_in), count))
            if bias:
                out.append((name + ".bias", (n_out,), count))

        def mlp(prefix: str, f: int, count: int = 1) -> None:
            if self.mlp == "gated":
                linear(prefix + "gate", f, h, self.mlp_bias, count)
            linear(prefix + "up", f, h, self.mlp_bias, count)
            linear(prefix + "down", h, f, self.mlp_bias, count)

        norm("attn_norm")
        self._attention(p, linear, vector)
        if self.norms_per_layer == 4:
            norm("attn_post_norm")
        norm("mlp_norm")
        if self.is_moe_layer(i):
            linear(p + "mlp.router", self.num_experts, h, self.router_bias)
            mlp(p + "mlp.experts.*.", self.expert_size, self.num_experts)
            if self.shared_expert_intermediate_size:
                mlp(p + "mlp.shared.", self.shared_expert_intermediate_size)
                if self.shared_expert_gate:
                    linear(p + "mlp.shared_gate", 1, h, False)
        else:
            mlp(p + "mlp.", self.intermediate_size)
        if self.norms_per_layer == 4:
            norm("mlp_post_norm")
        return out

    def layer_tensors(self, i: int) -> list[tuple[str, tuple[int, ...]]]:
        """Name and shape of every weight tensor in transformer layer `i`, each expert's own (lesson 05)."""
        out: list[tuple[str, tuple[int, ...]]] = []
        for name, shape, count in self.layer_groups(i):
            if ".experts.*." in name:
                out += [(name.replace(".*.", f".{e}."), shape) for e in range(count)]
            else:
                out.append((name, shape))
        return self._expert_order(out)

    @staticmethod
    def _expert_order(tensors: list[tuple[str, tuple[int, ...]]]) -> list[tuple[str, tuple[int, ...]]]:
        # experts listed expert by expert (gate, up, down of expert 0, then expert 1), as a module holds them
        experts = [t for t in tensors if ".experts." in t[0]]
        if not experts:
            return tensors
        experts.sort(key=lambda t: int(t[0].split(".experts.", 1)[1].split(".", 1)[0]))
        first = next(i for i, t in enumerate(tensors) if ".experts." in t[0])
        rest = [t for t in tensors if ".experts." not in t[0]]
        return rest[:first] + experts + rest[first:]

    def _outside_groups(self) -> list[Group]:
        h = self.hidden_size
        out: list[Group] = [("embed.weight", (self.vocab_size, h), 1)]
        if self.learned_positions:
            out.append(("pos_embed.weight", (self.learned_positions, h), 1))
        out.append(("final_norm.weight", (h,), 1))
        if self.norm == "layernorm":
            out.append(("final_norm.bias", (h,), 1))
        if not self.tied_embeddings:
            out.append(("lm_head.weight", (self.vocab_size, h), 1))
        if self.lm_head_bias:
            out.append(("lm_head.bias", (self.vocab_size,), 1))
        if self.extra_params:
            out.append(("extra.weight", (self.extra_params,), 1))
        return out

    def tensors(self) -> list[tuple[str, tuple[int, ...]]]:
        """Name and shape of every weight tensor of the model, embeddings and head included (lesson 05).

        Lists every layer and expert one by one: for counting, `groups()` is the same in far fewer entries.
        """
        first, last = self._ends()
        out = [(name, shape) for name, shape, _ in first]
        for i in range(self.num_layers):
            out += self.layer_tensors(i)
        return out + [(name, shape) for name, shape, _ in last]

    def _ends(self) -> tuple[list[Group], list[Group]]:
        """(the tensors before the layers: embeddings; after them: final norm, head, extra)."""
        outside = self._outside_groups()
        first = [g for g in outside if g[0] in ("embed.weight", "pos_embed.weight")]
        return first, [g for g in outside if g not in first]

    def _kinds(self) -> list[tuple[int, int]]:
        """(a representative layer, how many layers like it): dense and mixture-of-experts layers."""
        if not self.is_moe or not self.dense_layers:
            return [(0, self.num_layers)]
        first_moe = next(i for i in range(self.num_layers) if i not in self.dense_layers)
        kinds = [(self.dense_layers[0], len(self.dense_layers))]
        return kinds + ([(first_moe, self.moe_layers)] if self.moe_layers else [])

    def groups(self) -> list[Group]:
        """Every weight tensor as (name with '*' for the layer and expert, shape, how many) (lesson 08).

        The same tensors as `tensors()`, added up: sum(numel x count) is n_params.
        """
        merged: dict[tuple[str, tuple[int, ...]], int] = {}
        for rep, layers in self._kinds():
            for name, shape, count in self.layer_groups(rep):
                key = ("layers.*." + name.split(".", 2)[2], shape)
                merged[key] = merged.get(key, 0) + count * layers
        first, last = self._ends()
        return first + [(n, s, c) for (n, s), c in merged.items()] + last
