"""The Check yourself questions at the end of lesson 08, with their targets."""

from __future__ import annotations

from lessonkit.estimate import DEFAULT_INFERENCE_TOKENS, decode_speed, estimate_inference
from lessonkit.estimate.recipes import TRAINING_RECIPES
from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import NumberExercise
from lessonkit.i18n import _, lazy
from lessonkit.models import ModelConfig, find_model, published_config
from lessonkit.units import GB, GIB

LLAMA_8B = find_model("llama-3.1-8b")
CHAT_TOKENS = 32768  # the conversation of question 1: a quarter of Llama 3.1's 131,072-token context

# Question 2: Step 3's full fine-tuning of Llama 3.2 1B, with torch.optim.AdamW's default (foreach) step.
LLAMA_1B = find_model("llama-3.2-1b")
FOREACH = TRAINING_RECIPES["autocast_bf16"]  # PyTorch AMP (bf16 autocast) + torch.optim.AdamW's default
FUSED = TRAINING_RECIPES["amp_bf16"]  # the same with fused=True: the estimator's default, 16 bytes
MASTER = TRAINING_RECIPES["mixed_bf16"]  # master weights with fp32 gradient copies and foreach: the old 24

# Question 3: Step 2's mixture of experts, from the config.json lessonkit keeps (as lesson 05 reads it).
_QWEN3 = published_config("qwen3-30b-a3b")
MOE = ModelConfig.from_hf_config(_QWEN3.config, name=_QWEN3.name)
MOE_GPU, MOE_USERS = "H100_SXM", 2


def _chat(tokens: int = CHAT_TOKENS) -> tuple[int, int, int]:
    """(weights, KV cache, whole estimate) in bytes: Llama 3.1 8B, fp16, a `tokens` conversation (lesson 08)."""
    est = estimate_inference(LLAMA_8B, dtype="fp16", seq_len=tokens)
    return est.breakdown["weights"], est.breakdown["kv_cache"], est.total


def _chat_target() -> Target:
    """Question 1 of lesson 08: weights and KV cache of a long chat, in the language shown now."""
    weights, kv, total = _chat()
    _weights, kv_default, total_default = _chat(DEFAULT_INFERENCE_TOKENS)  # Step 1's conversation, estimate's default
    kv_per_token = kv / CHAT_TOKENS
    c = LLAMA_8B
    return Target(
        (weights + kv) / GIB,
        correct=_(
            "weights {weights:.2f} GiB + KV cache {kv:.2f} GiB = {both:.2f} GiB. "
            "With the CUDA context and the temporary buffers the whole estimate is {total:.2f} GiB."
        ).format(weights=weights / GIB, kv=kv / GIB, both=(weights + kv) / GIB, total=total / GIB),
        traps=(
            Trap(
                weights / GIB,
                _("that is the weights alone. Add the KV cache for every token of the conversation."),
            ),
            Trap(
                (weights + kv * c.num_heads / c.num_kv_heads) / GIB,
                _(
                    "that counts a key-value head for each of the {heads} query heads. Llama 3.1 has only "
                    "{kv_heads} KV heads (grouped-query attention), so its cache is "
                    "{ratio} times smaller."
                ).format(heads=c.num_heads, kv_heads=c.num_kv_heads, ratio=c.num_heads // c.num_kv_heads),
            ),
            Trap(
                (weights + kv / 2) / GIB,
                _(
                    "that caches only the keys. The cache holds a key and a value for every token: the 2 in "
                    "2 × layers × kv_heads × head_dim × bytes."
                ),
            ),
            Trap(
                total / GIB,
                _(
                    "that is the whole estimate, with the CUDA context and the temporary buffers. The question asks "
                    "for the weights and the KV cache only."
                ),
            ),
            Trap(
                (2 * weights + 2 * kv) / GIB,
                _("that uses 4 bytes per value, which is fp32. fp16 takes 2 bytes."),
            ),
            Trap(
                (weights + kv_default) / GIB,
                _(
                    "that is the KV cache of {default:,} tokens, Step 1's conversation and what `estimate_inference` "
                    "assumes when it is given no `seq_len`. This conversation is {tokens:,} tokens long."
                ).format(default=DEFAULT_INFERENCE_TOKENS, tokens=CHAT_TOKENS),
                0.002,
            ),
            Trap(
                total_default / GIB,
                _(
                    "that is Step 1's whole estimate for {default:,} tokens. The question asks for the weights and "
                    "the KV cache of a {tokens:,}-token conversation."
                ).format(default=DEFAULT_INFERENCE_TOKENS, tokens=CHAT_TOKENS),
                0.002,
            ),
            Trap(
                (weights + kv_per_token * 32000) / GIB,
                _("that counts 32,000 tokens. The conversation has {tokens:,} tokens: 32K here means 2**15.").format(
                    tokens=CHAT_TOKENS
                ),
                0.001,
            ),
            Trap(
                kv / GIB,
                _("that is the KV cache alone. Add the weights: the question asks for both together."),
            ),
        ),
    )


def _chat_explanation() -> str:
    """The worked answer to question 1 of lesson 08, in the language shown now."""
    weights, kv, _total = _chat()
    c = LLAMA_8B
    per_token = 2 * c.num_layers * c.num_kv_heads * c.head_dim * 2
    return _(
        "Weights: {params:,} parameters × 2 bytes = {weights:,} bytes = {weights_gib:.2f} GiB. "
        "KV cache: 2 × {layers} layers × {kv_heads} KV heads × {head_dim} × 2 bytes = "
        "{per_token:,} bytes per token; × {tokens:,} tokens = {kv:.2f} GiB. "
        "Together {both:.2f} GiB."
    ).format(
        params=c.n_params,
        weights=weights,
        weights_gib=weights / GIB,
        layers=c.num_layers,
        kv_heads=c.num_kv_heads,
        head_dim=c.head_dim,
        per_token=per_token,
        tokens=CHAT_TOKENS,
        kv=kv / GIB,
        both=(weights + kv) / GIB,
    )


def _gb(bytes_per_param: float) -> float:
    """GB for Llama 3.2 1B at `bytes_per_param` bytes per parameter (question 2 of lesson 08)."""
    return LLAMA_1B.n_params * bytes_per_param / GB


def _foreach_target() -> Target:
    """Question 2 of lesson 08: AMP with torch.optim.AdamW's foreach step, in the language shown now."""
    parts = FOREACH.bytes_per_parameter()
    per_param = FOREACH.total_bytes_per_parameter()
    return Target(
        _gb(per_param),
        correct=_(
            "{w:g} (fp32 weights) + {g:g} (fp32 gradients) + {s:g} (AdamW's two moments) + {x:g} (the foreach "
            "step's scratch) = {per_param:g} bytes per parameter; × {n:,} parameters = {gb:.2f} GB. "
            "`fused=True` saves the {x:g}: {fused_gb:.2f} GB."
        ).format(
            w=parts["weights"],
            g=parts["gradients"],
            s=parts["optimizer_state"],
            x=parts["step_scratch"],
            per_param=per_param,
            n=LLAMA_1B.n_params,
            gb=_gb(per_param),
            fused_gb=_gb(FUSED.total_bytes_per_parameter()),
        ),
        traps=(
            Trap(
                _gb(FUSED.total_bytes_per_parameter()),
                _(
                    "that is the 16 bytes per parameter of fused AdamW, Step 3's default. Without `fused=True` "
                    "the step runs PyTorch's foreach implementation, which holds a scratch buffer the size of one "
                    "moment: 4 more bytes per parameter."
                ),
            ),
            Trap(
                _gb(MASTER.total_bytes_per_parameter()),
                _(
                    "that is the 24 bytes of a hand-written master-weights loop. Under autocast the parameters "
                    "themselves stay fp32: there is no separate master copy and no fp32 copy of the gradients."
                ),
            ),
            Trap(
                _gb(2 + 2 + 8),
                _(
                    "that keeps the weights and gradients in bf16 and leaves out the scratch. Under autocast both "
                    "stay fp32, 4 bytes each: only the arithmetic runs in bf16. Then add the foreach step's scratch."
                ),
            ),
            Trap(
                _gb(per_param + 2),
                _(
                    "that adds autocast's 16-bit weight copies. They are kept for the backward pass and freed "
                    "during it, before the optimizer step."
                ),
            ),
            Trap(
                per_param,
                _("that is the bytes per parameter. Multiply by the {n:,} parameters, then divide by 10**9.").format(
                    n=LLAMA_1B.n_params
                ),
                0,
            ),
        ),
    )


def _moe() -> tuple[int, int, int, int]:
    """(one user's weights read, two users' on different experts, on random ones, all weights) in bytes (lesson 08)."""
    one = decode_speed(MOE, MOE_GPU, dtype="bf16")
    two = decode_speed(MOE, MOE_GPU, dtype="bf16", batch=MOE_USERS)
    uniform, spread = two.routed_weight_bytes
    return one.weight_bytes, spread, uniform, estimate_inference(MOE, dtype="bf16").breakdown["weights"]


def _experts_per_token_bytes() -> int:
    """Bytes of the experts one token uses in every layer, in bf16 (question 3 of lesson 08)."""
    return MOE.params_per_expert * MOE.experts_per_token * MOE.moe_layers * 2


def _moe_target() -> Target:
    """Question 3 of lesson 08: the weights two users' step reads when their tokens pick different experts."""
    one, spread, uniform, every = _moe()
    experts = _experts_per_token_bytes()
    kv = decode_speed(MOE, MOE_GPU, dtype="bf16", batch=MOE_USERS).kv_cache_bytes
    return Target(
        spread / GB,
        correct=_(
            "the shared part ({shared:.2f} GB: attention, norms, routers, output head) is read once for both "
            "users, the experts once per token: {shared:.2f} + 2 × {experts:.2f} = {gb:.2f} GB. One user's step "
            "reads {one:.2f} GB."
        ).format(shared=(one - experts) / GB, experts=experts / GB, gb=spread / GB, one=one / GB),
        traps=(
            Trap(
                2 * one / GB,
                _(
                    "that reads everything twice. Attention, norms, routers and the output head are read once per "
                    "step for the whole batch; only the experts differ from token to token."
                ),
            ),
            Trap(
                one / GB,
                _(
                    "that is one user's step, or two users whose tokens pick the same experts: the case the upper "
                    "bound assumes. Here the second token brings 8 experts of its own in every layer."
                ),
            ),
            Trap(
                every / GB,
                _(
                    "that is every expert: what must sit in memory. A step reads only the experts its tokens "
                    "pick, here 16 of the 128 in each layer."
                ),
            ),
            Trap(
                uniform / GB,
                _(
                    "that is the average with uniformly random routing, where the two tokens sometimes share an "
                    "expert. The question says they pick different experts."
                ),
            ),
            Trap(
                (spread + kv) / GB,
                _("that adds the two users' KV caches. The question asks for the weights only."),
            ),
            Trap(
                2 * experts / GB,
                _(
                    "that is the two tokens' experts alone. The rest of the model (attention, norms, routers, "
                    "output head) is read too, once."
                ),
            ),
        ),
    )


def _moe_explanation() -> str:
    """The worked answer to question 3 of lesson 08, in the language shown now."""
    one, spread, _uniform, _every = _moe()
    experts = _experts_per_token_bytes()
    return _(
        "One user's step reads {one:.2f} GB (Step 2). Of that, the token's experts are {per_expert:,} parameters "
        "× {used} experts × {layers} layers × 2 bytes = {experts:.2f} GB; the rest, {shared:.2f} GB, every token "
        "shares. A second token on other experts adds its own {experts:.2f} GB: {shared:.2f} + 2 × {experts:.2f} "
        "= {gb:.2f} GB (and one more row of the embedding table, a few KB)."
    ).format(
        one=one / GB,
        per_expert=MOE.params_per_expert,
        used=MOE.experts_per_token,
        layers=MOE.moe_layers,
        experts=experts / GB,
        shared=(one - experts) / GB,
        gb=spread / GB,
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "08-chat-memory",
        title=lazy("weights + KV cache of a long chat"),
        unit="GiB",
        target=_chat_target,
        hints=(
            lazy(
                "Two parts: the weights (parameters × 2 bytes in fp16) and the KV cache "
                "(2 × layers × kv_heads × head_dim × 2 bytes per token, times the tokens)."
            ),
            lazy(
                "`print(find_model('llama-3.1-8b'))` shows the shape: {layers} layers, "
                "{kv_heads} KV heads of {head_dim}. Or let lessonkit add it up: "
                "`estimate_inference(...).breakdown` has a 'weights' and a 'kv_cache' entry, in bytes.",
                layers=LLAMA_8B.num_layers,
                kv_heads=LLAMA_8B.num_kv_heads,
                head_dim=LLAMA_8B.head_dim,
            ),
        ),
        explanation=_chat_explanation,
        code='est = estimate_inference("llama-3.1-8b", dtype="fp16", seq_len='
        f'{CHAT_TOKENS})\nanswer = (est.breakdown["weights"] + est.breakdown["kv_cache"]) / 2**30   # GiB',
    ),
    NumberExercise(
        "08-foreach-adamw",
        title=lazy("AMP with torch.optim.AdamW's default step"),
        unit="GB",
        target=_foreach_target,
        hints=(
            lazy(
                "Find the recipe in Step 3's table: PyTorch AMP with torch.optim.AdamW's default (foreach) step. "
                "What does it keep per parameter at the optimizer step?"
            ),
            lazy(
                "fp32 weights 4 + fp32 gradients 4 + AdamW's two moments 8 + the foreach step's scratch 4 bytes. "
                "Multiply by Llama 3.2 1B's {n:,} parameters and divide by 10**9 for GB.",
                n=LLAMA_1B.n_params,
            ),
        ),
        explanation=lazy(
            "Under autocast the parameters stay fp32, so the model states are 4 + 4 + 8 = 16 bytes per parameter, "
            "the standard figure. PyTorch's foreach AdamW adds a scratch buffer the size of one moment during "
            "`step()`: {per_param:g} bytes × {n:,} parameters = {gb:.2f} GB.",
            per_param=FOREACH.total_bytes_per_parameter(),
            n=LLAMA_1B.n_params,
            gb=_gb(FOREACH.total_bytes_per_parameter()),
        ),
        code=(
            'per_param = TRAINING_RECIPES["autocast_bf16"].total_bytes_per_parameter()   # '
            f"{FOREACH.total_bytes_per_parameter():g}\n"
            'answer = find_model("llama-3.2-1b").n_params * per_param / 1e9   # GB'
        ),
    ),
    NumberExercise(
        "08-moe-two-users",
        title=lazy("weights two users' step reads from a mixture of experts"),
        unit="GB",
        target=_moe_target,
        hints=(
            lazy(
                "Split one user's step into what every token reads (attention, norms, routers, output head) and "
                "the token's own experts. Which part does a second token on other experts add again?"
            ),
            lazy(
                "One token's experts: {per_expert:,} parameters per expert × {used} experts × {layers} layers × 2 "
                "bytes. Or ask lessonkit: `decode_speed(qwen3_moe, 'H100_SXM', dtype='bf16', batch=2)` keeps the "
                "bytes of both routing cases in `routed_weight_bytes`.",
                per_expert=MOE.params_per_expert,
                used=MOE.experts_per_token,
                layers=MOE.moe_layers,
            ),
        ),
        explanation=_moe_explanation,
        code=(
            'speed = decode_speed(qwen3_moe, "H100_SXM", dtype="bf16", batch=2)\n'
            "uniform, different = speed.routed_weight_bytes\n"
            "answer = different / 1e9   # GB"
        ),
    ),
]
