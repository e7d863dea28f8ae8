"""Full fine-tuning recipes named after what people run, with bytes per parameter and a source (lessons 08, 10).

Every recipe keeps the same four model states the ZeRO paper counts (Rajbhandari et al. 2020,
section 3.1, https://arxiv.org/abs/1910.02054; EleutherAI's Transformer Math 101): weights,
gradients and AdamW's two moments, 16 bytes per parameter in mixed precision. What differs from
framework to framework is the extras: an fp32 master copy, gradients kept in fp32 or copied to
fp32 for the optimizer, and the scratch space of PyTorch's default (foreach) AdamW step.
`bytes_per_parameter` adds them up for AdamW; the estimate counts the same parts at the moment
each exists. Where a recipe runs on a CPU it is checked against measured tensors
(tests/test_precision_modes.py); DeepSpeed, Megatron and FSDP2 need GPUs and are counted from
their sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from lessonkit._checks import shown
from lessonkit.i18n import Lazy, lazy, text
from lessonkit.units import DTYPE_BYTES

# What each kind of recipe is called where a learner reads it (an estimate's label, the calculator's figure
# title): a name, not a key such as "amp_bf16", translated when it is shown (Recipe.title).
_TITLES: dict[str, Lazy] = {
    "fp32": lazy("fp32 throughout"),
    "pure": lazy("pure {dtype}"),
    "amp": lazy("PyTorch AMP ({dtype} autocast)"),
    "autocast": lazy("PyTorch AMP ({dtype} autocast)"),
    "deepspeed": lazy("DeepSpeed mixed precision ({dtype})"),
    "megatron": lazy("Megatron-LM mixed precision ({dtype})"),
    "fsdp2": lazy("FSDP2 mixed precision ({dtype})"),
    "mixed": lazy("{dtype} with fp32 master weights"),
}


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """One way to hold a model's training state: dtypes, extras, the optimizer's implementation (lessons 08, 10).

    weights: the parameters as the model holds them; grads: the gradients the optimizer reads;
    master: an fp32 master copy (or None); master_grads: an fp32 copy of the gradients made for the
    master step (DeepSpeed, Apex, Megatron in fp16); state: AdamW's moments; compute: the
    activations' dtype (autocast: the copies it keeps of the weights too, see `autocast`); fused:
    the optimizer updates in place (True), or PyTorch's default foreach step with a state-sized
    scratch (False), or the estimate's `fused` setting decides (None).
    """

    key: str
    label: str | Lazy  # shown in the language lessonkit speaks: str(recipe.label), or in a table
    framework: str | Lazy
    weights: str
    grads: str
    master: str | None = None
    master_grads: bool = False
    state: str = "fp32"
    compute: str
    fused: bool | None = None
    sources: tuple[str | Lazy, ...]  # addresses, each with what it shows; see `source`

    @property
    def title(self) -> str:
        """The recipe as a learner reads it, e.g. 'PyTorch AMP (bf16 autocast)', in lessonkit's language (lesson 08).

        An estimate's label and the calculator's figure title show it in place of the key ('amp_bf16').
        """
        kind, _sep, dtype = self.key.rpartition("_")
        if not kind:  # "fp32", or "bf16" / "fp16": pure 16-bit
            kind, dtype = ("fp32", "fp32") if self.key == "fp32" else ("pure", self.key)
        return text(_TITLES[kind]).format(dtype=dtype)

    @property
    def source(self) -> str:
        """Where the recipe's bytes come from: addresses with notes, in lessonkit's language (lesson 08).

        The addresses stay as they are; a note after one ("bytes per parameter: ...") is translated when shown.
        """
        return "; ".join(str(part) for part in self.sources)

    @property
    def autocast(self) -> bool:
        """Whether the arithmetic runs under torch.autocast on fp32 weights (16-bit weight copies kept) (lesson 08)."""
        return self.weights == "fp32" and self.compute != "fp32" and not self.key.startswith("fsdp2")

    def __getitem__(self, key: str) -> object:
        """recipe["weights"] as recipe.weights: the mapping these recipes were before they were named (lesson 08)."""
        if key not in ("weights", "grads", "master", "state", "compute"):
            raise KeyError(key)
        return getattr(self, key)

    def bytes_per_parameter(self, fused: bool | None = None) -> dict[str, float]:
        """Bytes per parameter with AdamW, part by part, the extras named apart (lesson 08).

        The four model states add up to 16 in mixed precision; the extras are named on their own.
        """
        in_place = self.fused if fused is None else fused
        parts = {
            "weights": DTYPE_BYTES[self.weights],
            "gradients": DTYPE_BYTES[self.grads],
            "master_weights": 4.0 if self.master else 0.0,
            "optimizer_state": 2 * DTYPE_BYTES[self.state],
            "master_gradients": 4.0 if self.master_grads else 0.0,
            "step_scratch": 0.0 if in_place else DTYPE_BYTES[self.state],
        }
        return parts

    def total_bytes_per_parameter(self, fused: bool | None = None) -> float:
        """The sum of bytes_per_parameter: 16 PyTorch AMP with fused AdamW, 18 Megatron, 20 DeepSpeed (lesson 08)."""
        return sum(self.bytes_per_parameter(fused).values())


_AMP = "https://docs.pytorch.org/docs/stable/amp.html"
_ADAMW = "https://docs.pytorch.org/docs/stable/generated/torch.optim.AdamW.html"
# A source's note is a sentence a learner reads under lesson 08's recipe table, so it is translated when shown.
_TRAINER = lazy(
    "{url} (optim: adamw_torch_fused for torch>=2.8)",
    url="https://github.com/huggingface/transformers/blob/v5.17.0/src/transformers/training_args.py",
)
_DEEPSPEED = lazy(
    "{url} (single_partition_of_fp32_groups and their fp32 .grad); ZeRO paper section 3.1",
    url="https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/zero/stage_1_and_2.py",
)
_MEGATRON = lazy(
    "{url} (bytes per parameter: 20 fp16, 18 bf16 with fp32 main grads, 16 fp32)",
    url="https://github.com/NVIDIA/Megatron-LM/blob/main/docs/source/api-guide/dist_optimizer.md",
)
_FSDP2 = "https://docs.pytorch.org/docs/stable/distributed.fsdp.fully_shard.html (MixedPrecisionPolicy)"


def _recipes() -> dict[str, Recipe]:
    out = {
        "fp32": Recipe(
            key="fp32",
            label=lazy("fp32, torch.optim.AdamW (foreach)"),
            framework="PyTorch",
            weights="fp32",
            grads="fp32",
            compute="fp32",
            sources=(_ADAMW,),
        ),
    }
    for d in ("bf16", "fp16"):
        out[d] = Recipe(
            key=d,
            label=lazy("pure {dtype}, torch.optim.AdamW (state in {dtype})", dtype=d),
            framework="PyTorch",
            weights=d,
            grads=d,
            state=d,
            compute=d,
            sources=(_ADAMW,),
        )
        out[f"amp_{d}"] = Recipe(
            key=f"amp_{d}",
            label=lazy("PyTorch AMP ({dtype} autocast) + fused AdamW", dtype=d),
            framework="PyTorch / Hugging Face Trainer",
            weights="fp32",
            grads="fp32",
            compute=d,
            fused=True,
            sources=(_AMP, _ADAMW, _TRAINER),
        )
        out[f"autocast_{d}"] = Recipe(
            key=f"autocast_{d}",
            label=lazy("PyTorch AMP ({dtype} autocast) + torch.optim.AdamW's default (foreach)", dtype=d),
            framework="PyTorch",
            weights="fp32",
            grads="fp32",
            compute=d,
            sources=(_AMP, _ADAMW),
        )
        out[f"deepspeed_{d}"] = Recipe(
            key=f"deepspeed_{d}",
            label=lazy("DeepSpeed ZeRO mixed precision ({dtype}) + FusedAdam", dtype=d),
            framework="DeepSpeed / Apex",
            weights=d,
            grads=d,
            master="fp32",
            master_grads=True,
            compute=d,
            fused=True,
            sources=(_DEEPSPEED,),
        )
        out[f"megatron_{d}"] = Recipe(
            key=f"megatron_{d}",
            label=lazy("Megatron-LM mixed precision ({dtype})", dtype=d),
            framework="Megatron-LM",
            weights=d,
            grads="fp32" if d == "bf16" else d,  # bf16 keeps fp32 main grads; fp16 copies them to fp32
            master="fp32",
            master_grads=d == "fp16",
            compute=d,
            fused=True,
            sources=(_MEGATRON,),
        )
        out[f"fsdp2_{d}"] = Recipe(
            key=f"fsdp2_{d}",
            label=lazy(
                "FSDP2 mixed precision ({dtype} compute, fp32 sharded parameters) + torch.optim.AdamW (foreach)",
                dtype=d,
            ),
            framework="PyTorch FSDP2",
            weights="fp32",
            grads="fp32",
            compute=d,
            sources=(_FSDP2, _ADAMW),
        )
        out[f"mixed_{d}"] = Recipe(
            key=f"mixed_{d}",
            label=lazy("mixed {dtype} with fp32 master weights, torch.optim.AdamW (foreach)", dtype=d),
            framework=lazy("a hand-written loop"),
            weights=d,
            grads=d,
            master="fp32",
            master_grads=True,
            compute=d,
            sources=(_DEEPSPEED, _ADAMW),
        )
    return out


TRAINING_RECIPES = MappingProxyType(_recipes())
# The default of full fine-tuning: what the Hugging Face Trainer runs with bf16=True on torch 2.8 and
# later (fp32 parameters under torch.autocast, AdamW with fused=True): the 16 bytes per parameter of
# the standard accounting and nothing more.
DEFAULT_RECIPE = "amp_{dtype}"
# The recipe each way of spreading a job over GPUs runs by default (lessonkit.estimate.sharding):
# PyTorch DDP with AMP, DeepSpeed's ZeRO stages with its own mixed precision, FSDP2 with its policy.
STRATEGY_RECIPES = MappingProxyType(
    {
        "ddp": "amp_{dtype}",
        "zero1": "deepspeed_{dtype}",
        "zero2": "deepspeed_{dtype}",
        "zero3": "deepspeed_{dtype}",
        "fsdp": "fsdp2_{dtype}",
    }
)


def recipe_for(dtype: str, pattern: str = DEFAULT_RECIPE) -> str:
    """The recipe key for a 16-bit dtype ('bf16' -> 'amp_bf16'); 'fp32' trains in fp32 (lesson 08).

    pattern: DEFAULT_RECIPE or one of STRATEGY_RECIPES' values.
    """
    if not isinstance(dtype, str) or dtype not in ("bf16", "fp16", "fp32"):
        raise ValueError(f"dtype must be one of ['bf16', 'fp16', 'fp32'], got {shown(dtype)}")
    patterns = {DEFAULT_RECIPE, *STRATEGY_RECIPES.values()}
    if not isinstance(pattern, str) or pattern not in patterns:
        raise ValueError(f"pattern must be one of {sorted(patterns)}, got {shown(pattern)}")
    return "fp32" if dtype == "fp32" else pattern.format(dtype=dtype)
