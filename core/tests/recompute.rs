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

/// Fine-grained offloading (Megatron-Core's `--offload-modules`): Llama 3.1
/// 70B at TP 8 with sequence parallelism, nothing recomputed, sends a token
/// and a layer the attention's q (2·8 192), k and v (2·2·1 024), output
/// (2·8 192) and log-sum-exp (4·64) split over the 8 ranks for
/// `core_attn` (the output alone for `attn_proj`), and the two norms'
/// inputs (2·8 192 each, split by sequence parallelism) for `attn_norm,
/// mlp_norm`. What leaves the kept set is in CPU memory for every layer
/// and micro-batch in flight and in the working set of the layer being
/// copied; the copies run under the layers' compute on an H100 (the
/// step is unchanged); full recomputation keeps nothing to send.
#[test]
fn offloaded_modules_leave_the_gpu() {
    use plan3d_core::cost::offload::OffloadModules;
    use plan3d_core::cost::step::kept_per_token;
    let m = model::LLAMA_3_1_70B;
    let a = Assumptions::PRACTICE;
    let hw = h100();
    let none = Config {
        tensor: 8,
        pipe: 4,
        micro_batches: 8,
        sequence_parallel: true,
        activation: ActivationModel::None,
        ..Config::default()
    };
    let with = |modules: &str| Config {
        offload_modules: OffloadModules::parse(modules).unwrap(),
        ..none
    };
    let (k0, w0) = kept_per_token(&m, &none, &a);
    let attention = (2.0 * 8192.0 + 4.0 * 1024.0 + 2.0 * 8192.0 + 4.0 * 64.0) / 8.0;
    let norms = 2.0 * (2.0 * 8192.0) / 8.0;
    for (modules, sent) in [
        ("core_attn", attention),
        ("attn_proj", 2.0 * 8192.0 / 8.0),
        ("core_attn,attn_proj", attention),
        ("attn_norm,mlp_norm", norms),
        ("core_attn,attn_norm,mlp_norm", attention + norms),
    ] {
        let (k, w) = kept_per_token(&m, &with(modules), &a);
        assert!(close(k0 - k, sent, 1e-12), "{modules}: {} {sent}", k0 - k);
        assert!(close(w - w0, sent, 1e-12), "{modules}");
    }
    // On the first stage: 20 layers, 4 micro-batches in flight, 8 192
    // tokens each.
    let base = stage_memory(&m, &none, &a, 0);
    let off = stage_memory(&m, &with("core_attn"), &a, 0);
    let moved = attention * 20.0 * 4.0 * 8192.0;
    assert!(close(base.activations.0 - off.activations.0, moved, 1e-9));
    assert!(close(off.host.0 - base.host.0, moved, 1e-9));
    let time = |c: &Config| evaluate_with(&m, &hw, c, &a).unwrap().step.0;
    assert!(close(time(&with("core_attn")), time(&none), 1e-12));
    // Nothing to send under full recomputation, which is refused in words;
    // an unknown name refused.
    let full = Config {
        activation: ActivationModel::Full,
        ..with("core_attn")
    };
    assert_eq!(
        kept_per_token(&m, &full, &a),
        kept_per_token(
            &m,
            &Config {
                activation: ActivationModel::Full,
                ..none
            },
            &a
        )
    );
    // Under Transformer Engine's FP8 the projection's input was kept as a
    // 1-byte copy beside the attention's 2-byte output: sending the output
    // leaves neither, 1 byte an element more than the FP8 count alone.
    let fp8 = plan3d_core::cost::framework::Framework::MegatronCore.apply(Assumptions {
        compute: plan3d_core::cost::assumptions::Compute::Fp8Current,
        ..Assumptions::PRACTICE
    });
    let (b8, o8) = (
        stage_memory(&m, &none, &fp8, 0).activations.0,
        stage_memory(&m, &with("attn_proj"), &fp8, 0).activations.0,
    );
    assert!(
        close(b8 - o8, 8192.0 / 8.0 * 20.0 * 4.0 * 8192.0, 1e-9),
        "{}",
        b8 - o8
    );
    let refused = evaluate(&m, &hw, &full).unwrap_err().to_string();
    assert!(refused.contains("offload module"), "{refused}");
    assert_eq!(
        with("attn_proj,core_attn").offload_modules.names(),
        "core_attn,attn_proj"
    );
    assert!(OffloadModules::parse("attention").is_err());
}
