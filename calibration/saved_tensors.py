"""Bytes that real model code saves for backward, per transformer layer, counted on the CPU.

The fixtures of plan3d's op-by-op activation model (issue: memory as your framework allocates
it). For Hugging Face's Llama and GPT-2 (built from a config: no weights are
downloaded), one training forward pass runs under `torch.autograd.graph.saved_tensors_hooks`;
every tensor autograd saves is recorded by storage (views of one storage count once).
Parameters, and the bf16 copies autocast makes of them (a `ToCopyBackward0` whose input is a
leaf), are left out: they are weights, not activations. A layer's bytes are the difference
between the model with two layers and with one, so the embedding, the final norm and the loss
cancel.

The grid: widths, heads and key/value heads, sequence lengths and micro-batches small enough for
a CPU; attention dropout is 0 (the CPU's flash kernel has no dropout: with it PyTorch falls back
to the materialized math kernel, where the CUDA FlashAttention kernel keeps only the RNG state),
dropout 0 or 0.1 on the hidden states where the model has it; two precisions, `amp` (fp32 parameters under `torch.autocast("cpu", torch.bfloat16)`,
plain PyTorch mixed precision) and `bf16` (bf16 parameters, no autocast: how FSDP's
`param_dtype=bfloat16` computes); recomputation none
or full (`gradient_checkpointing_enable`, non-reentrant).

Attention: every model runs `attn_implementation="sdpa"` with a causal mask and no padding.
On the CPU, scaled_dot_product_attention's flash kernel saves q, k, v, the output and the
log-sum-exp, as the CUDA FlashAttention kernel does (its documented saved tensors:
`_scaled_dot_product_flash_attention` saves query, key, value, output, logsumexp and the RNG
state); `attention_kernel` in each row says what was seen.

Usage: /path/to/python saved_tensors.py > core/tests/fixtures/saved_tensors.json
Needs torch and transformers (PyPI); ~1 minute on two cores.
"""
import json
import sys

import torch
import transformers
from transformers import (GPT2Config, GPT2LMHeadModel, GPTNeoXConfig, GPTNeoXForCausalLM,
                          LlamaConfig, LlamaForCausalLM)

VOCAB = 512


def build(kind, layers, h, heads, kv, ffn, seq, dropout, dtype):
    if kind == "hf-llama":
        cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=h, intermediate_size=ffn,
                          num_hidden_layers=layers, num_attention_heads=heads,
                          num_key_value_heads=kv, max_position_embeddings=seq,
                          attention_dropout=0.0, tie_word_embeddings=False)
        m = LlamaForCausalLM._from_config(cfg, attn_implementation="sdpa", torch_dtype=dtype)
    elif kind == "hf-gpt2":
        cfg = GPT2Config(vocab_size=VOCAB, n_embd=h, n_layer=layers, n_head=heads, n_inner=ffn,
                         n_positions=seq, resid_pdrop=dropout, embd_pdrop=dropout,
                         attn_pdrop=0.0)
        m = GPT2LMHeadModel._from_config(cfg, attn_implementation="sdpa", torch_dtype=dtype)
    elif kind == "hf-gpt-neox":
        cfg = GPTNeoXConfig(vocab_size=VOCAB, hidden_size=h, num_hidden_layers=layers,
                            num_attention_heads=heads, intermediate_size=ffn,
                            max_position_embeddings=seq, hidden_dropout=dropout,
                            attention_dropout=0.0, use_parallel_residual=True,
                            rotary_pct=0.25, tie_word_embeddings=False)
        m = GPTNeoXForCausalLM._from_config(cfg, attn_implementation="sdpa", torch_dtype=dtype)
    else:
        raise ValueError(kind)
    return m


VIEWS = {"TBackward0", "ViewBackward0", "TransposeBackward0", "PermuteBackward0",
         "ExpandBackward0", "UnsafeViewBackward0"}


def is_weight_cast(fn):
    """A copy autocast made of a parameter, or a view of one (a linear saves the weight's
    transpose): ToCopyBackward0 straight onto a leaf's AccumulateGrad."""
    for _ in range(4):
        if fn is None:
            return False
        name = type(fn).__name__
        if name == "ToCopyBackward0":
            nxt = fn.next_functions[0][0]
            return nxt is not None and type(nxt).__name__ == "AccumulateGrad"
        if name not in VIEWS:
            return False
        fn = fn.next_functions[0][0]
    return False


def saved_bytes(kind, layers, h, heads, kv, ffn, mb, seq, precision, dropout, recompute):
    torch.manual_seed(0)
    dtype = torch.float32 if precision == "amp" else torch.bfloat16
    m = build(kind, layers, h, heads, kv, ffn, seq, dropout, dtype)
    m.train()
    if recompute == "full":
        m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    params = {p.untyped_storage().data_ptr() for p in m.parameters()}
    seen, total, kernels = set(), 0, set()
    casts = set()

    def pack(t):
        nonlocal total
        if not isinstance(t, torch.Tensor):
            return t
        key = t.untyped_storage().data_ptr()
        if is_weight_cast(t.grad_fn):
            casts.add(key)
        if key in params or key in casts or key in seen:
            return t
        if t.dim() == 4 and t.shape[-1] == t.shape[-2] == seq and t.shape[1] == heads:
            kernels.add("materialized")
        seen.add(key)
        total += t.untyped_storage().nbytes()
        return t

    ids = torch.randint(0, VOCAB, (mb, seq))
    auto = torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "amp")
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), auto:
        out = m(input_ids=ids, labels=ids)
        loss = out.loss
    loss.backward()
    return total, kernels


def main():
    rows = []
    shapes = [
        # kind, h, heads, kv, ffn
        ("hf-llama", 256, 4, 4, 688),
        ("hf-llama", 384, 6, 2, 1024),
        ("hf-gpt2", 256, 4, 4, 1024),
        ("hf-gpt2", 384, 6, 6, 1536),
    ]
    for kind, h, heads, kv, ffn in shapes:
        for precision in ("amp", "bf16"):
            for mb, seq in ((1, 128), (2, 256)):
                drops = (0.0, 0.1) if kind != "hf-llama" else (0.0,)
                for dropout in drops:
                    for recompute in ("none", "full"):
                        one, k1 = saved_bytes(kind, 1, h, heads, kv, ffn, mb, seq, precision,
                                              dropout, recompute)
                        two, k2 = saved_bytes(kind, 2, h, heads, kv, ffn, mb, seq, precision,
                                              dropout, recompute)
                        rows.append({
                            "model": kind, "hidden": h, "heads": heads, "kv_heads": kv,
                            "ffn": ffn, "micro_batch": mb, "seq": seq,
                            "precision": precision, "dropout": dropout,
                            "recompute": recompute,
                            "layer_bytes": two - one,
                            "attention_kernel": "materialized" if (k1 | k2) else "flash",
                        })
                        print(rows[-1], file=sys.stderr)
    print(json.dumps({
        "about": __doc__.split("\n\n")[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "device": "cpu",
        "rows": rows,
    }, indent=1))


if __name__ == "__main__":
    main()
