//! The practice knobs the page cannot set, by hand: partial
//! recomputation (Megatron-Core's block method), activation offloading and
//! selective recomputation's modules (core feature `knobs`).

use crate::practice::{close, h100, GPT3};
use plan3d_core::cost::assumptions::Assumptions;
use plan3d_core::cost::evaluate_with;
use plan3d_core::cost::memory::stage_memory;
use plan3d_core::model;
use plan3d_core::{evaluate, ActivationModel, Config};

/// Partial recomputation (Megatron-Core's block method): of a chunk's 12
/// layers, 3 recomputed keep their 2·d_m/t checkpoint, the other 9 all
/// their activations; the step computes 3 + 3/12 forward passes a layer.
/// Offloading 4 of the 12 layers moves a third of the activations to CPU
/// memory.
#[test]
fn some_layers_recomputed_some_offloaded() {
    use plan3d_core::cost::step::{kept_per_token, passes_of, recomputed_share};
    let m = GPT3;
    let a = Assumptions::PRACTICE;
    let base = Config {
        tensor: 8,
        pipe: 8,
        micro_batches: 8,
        sequence_parallel: true,
        activation: ActivationModel::Full,
        ..Config::default()
    };
    let partial = Config {
        recompute_layers: 3,
        ..base
    };
    let none = Config {
        activation: ActivationModel::None,
        ..base
    };
    assert_eq!(recomputed_share(&partial, 96), 0.25);
    assert_eq!(passes_of(&partial, 96), 3.25);
    assert_eq!(passes_of(&base, 96), 4.0);
    let tokens = 2048.0;
    let ckpt = kept_per_token(&m, &base, &a).0;
    let all = kept_per_token(&m, &none, &a).0;
    // Device 0 of 1F1B: 12 layers, 8 micro-batches in flight.
    let s = stage_memory(&m, &partial, &a, 0);
    let want = tokens * 8.0 * 12.0 * (0.25 * ckpt + 0.75 * all);
    assert!(
        close(s.activations.0, want, 1e-12),
        "{} vs {want}",
        s.activations.0
    );
    // The step sits between no and full recomputation.
    let hw = h100();
    let time = |c: &Config| evaluate_with(&m, &hw, c, &a).unwrap().step.0;
    let (t_none, t_part, t_full) = (time(&none), time(&partial), time(&base));
    assert!(
        t_none < t_part && t_part < t_full,
        "{t_none} {t_part} {t_full}"
    );
    // Offloading 4 of 12 layers: a third of the activations on the host,
    // one layer's staged on the GPU.
    let off = Config {
        offload_layers: 4,
        ..none
    };
    let kept = stage_memory(&m, &none, &a, 0);
    let moved = stage_memory(&m, &off, &a, 0);
    assert!(close(
        moved.activations.0,
        kept.activations.0 * 2.0 / 3.0,
        1e-12
    ));
    assert!(close(moved.host.0, kept.activations.0 / 3.0, 1e-12));
    assert!(close(moved.working.0 - kept.working.0, all * tokens, 1e-9));
    // Only full recomputation recomputes some layers.
    let bad = Config {
        activation: ActivationModel::Selective,
        recompute_layers: 3,
        ..base
    };
    assert!(evaluate(&m, &hw, &bad).is_err());
}

/// Megatron-Core's selective recomputation modules: `core_attn` is the
/// default; adding `mlp` to a dense gated layer (Megatron-Core's fused
/// SwiGLU) drops its 6·d_I bytes a token from what is kept, into the
/// working set, and spends the MLP's forward GEMMs (2·3·d_m·d_I flop a
/// token) again; `layernorm` drops the two norms' outputs (4·d_m).
#[test]
fn recompute_modules_drop_what_they_recompute() {
    use plan3d_core::cost::saved::Modules;
    use plan3d_core::cost::step::{kept_per_token, recomputed_flops};
    let m = model::LLAMA_3_1_70B;
    let a = Assumptions::PRACTICE;
    let sel = Config {
        tensor: 8,
        sequence_parallel: true,
        activation: ActivationModel::Selective,
        ..Config::default()
    };
    let with = |modules: &str| Config {
        recompute_modules: Modules::parse(modules).unwrap(),
        ..sel
    };
    let (k0, w0) = kept_per_token(&m, &sel, &a);
    assert_eq!((k0, w0), kept_per_token(&m, &with("core_attn"), &a));
    let (h, ffn) = (m.width() as f64, f64::from(m.ffn));
    let (k1, w1) = kept_per_token(&m, &with("core_attn,mlp"), &a);
    assert!(close(k0 - k1, 6.0 * ffn / 8.0, 1e-12));
    assert!(close(w1 - w0, 6.0 * ffn / 8.0, 1e-12));
    assert!(close(
        recomputed_flops(&m, &with("core_attn,mlp"), &Assumptions::PRACTICE)
            - recomputed_flops(&m, &sel, &Assumptions::PRACTICE),
        2.0 * 3.0 * h * ffn,
        1e-12
    ));
    let (k2, _) = kept_per_token(&m, &with("core_attn,layernorm"), &a);
    assert!(close(k0 - k2, 4.0 * h / 8.0, 1e-12));
    assert_eq!(
        with("layernorm,mlp").recompute_modules.names(),
        "layernorm,mlp"
    );
    assert_eq!(sel.recompute_modules.names(), "core_attn");
    assert!(Modules::parse("attention").is_err());
}
