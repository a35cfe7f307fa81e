//! The practice search against brute force over every combination (no
//! dominance shortcuts), and its constraints.

use plan3d_core::cost::assumptions::{Assumptions, Zero};
use plan3d_core::cost::framework::Framework;
use plan3d_core::cost::{evaluate_with, PipelineSchedule, ZeroR};
use plan3d_core::search::{practice, Constraints, Parallelism, Space};
use plan3d_core::{
    hardware, model, ActivationModel, Config, Evaluation, Hardware, ModelShape, Network,
};
use proptest::prelude::*;

/// Every configuration with `gpus` GPUs and global batch `batch`.
pub(super) fn brute(
    m: &ModelShape,
    hw: &Hardware,
    gpus: u64,
    batch: u64,
    a: &Assumptions,
) -> Option<Evaluation> {
    brute_with(
        m,
        hw,
        gpus,
        batch,
        a,
        &[PipelineSchedule::OneFOneB, PipelineSchedule::GPipe],
    )
}

/// [`brute`] over the given pipeline schedules.
fn brute_with(
    m: &ModelShape,
    hw: &Hardware,
    gpus: u64,
    batch: u64,
    a: &Assumptions,
    schedules: &[PipelineSchedule],
) -> Option<Evaluation> {
    let mut best: Option<Evaluation> = None;
    let node = u64::from(hw.node_size.unwrap());
    let s = u64::from(m.seq_len);
    // Plain PyTorch and Hugging Face FSDP split no model over GPUs.
    let split = a.framework.model_parallel();
    let cps: Vec<u64> = if m.seq_len >= plan3d_core::search::practice::LONG_SEQUENCE && split {
        (0..8)
            .map(|k| 1u64 << k)
            .filter(|cp| s % cp == 0 && s / cp >= 4096)
            .collect()
    } else {
        vec![1]
    };
    let tensors = if split {
        node.min(u64::from(m.heads))
    } else {
        1
    };
    for (t, cp) in (1..=tensors).flat_map(|t| cps.iter().map(move |&cp| (t, cp))) {
        // A tensor group inside one node (`TENSOR_SPANS_NODES`).
        if node % t != 0 {
            continue;
        }
        for p in plan3d_core::search::practice::pipe_degrees(m.layers) {
            if !split && p > 1 {
                continue;
            }
            if gpus % (t * cp * p) != 0 {
                continue;
            }
            let d = gpus / (t * cp * p);
            for b in [1u64, 2, 4, 8] {
                if batch % (d * b) != 0 {
                    continue;
                }
                let mbs = batch / (d * b);
                if mbs < p {
                    continue;
                }
                for v in 1..=u64::from(m.layers) {
                    // Interleaving in Megatron-Core's default groups of p.
                    if v > 1 && (mbs % p != 0 || u64::from(m.layers).div_ceil(p) % v != 0) {
                        continue;
                    }
                    for recompute in [
                        ActivationModel::None,
                        ActivationModel::Selective,
                        ActivationModel::Full,
                    ] {
                        for sp in [false, true] {
                            for (zero, zero_r, schedule) in Zero::ALL.into_iter().flat_map(|z| {
                                ZeroR::ALL
                                    .into_iter()
                                    .flat_map(move |r| schedules.iter().map(move |&s| (z, r, s)))
                            }) {
                                // Megatron-style replicates the weights
                                // (Method::admits): ZeRO 0–2, stage 2
                                // without a pipeline, where the framework
                                // has it; plain PyTorch's DDP none.
                                let most = match a.framework {
                                    Framework::Pytorch => 0,
                                    Framework::Megatron2022 => 1,
                                    _ if p > 1 => 1,
                                    _ => 2,
                                };
                                if zero.stage() > most {
                                    continue;
                                }
                                // Every ep, with the experts' tensor
                                // degree t or (t > 1) 1, as practice
                                // searches them.
                                let eps = if m.experts.is_some() { t * d * cp } else { 1 };
                                let etps: &[u32] = if m.experts.is_some() && t > 1 {
                                    &[0, 1]
                                } else {
                                    &[0]
                                };
                                for (ep, &etp) in
                                    (1..=eps).flat_map(|ep| etps.iter().map(move |x| (ep, x)))
                                {
                                    let mut cfg = Config {
                                        expert: ep as u32,
                                        expert_tensor: etp,
                                        data: d as u32,
                                        pipe: p as u32,
                                        tensor: t as u32,
                                        micro_batch: b as u32,
                                        micro_batches: mbs as u32,
                                        activation: recompute,
                                        virtual_stages: v as u32,
                                        sequence_parallel: sp,
                                        zero,
                                        zero_r,
                                        pipeline_schedule: schedule,
                                        context: cp as u32,
                                        ..Config::default()
                                    };
                                    // The head counted in the split, as
                                    // practice does.
                                    cfg.head_layers =
                                        plan3d_core::cost::step::balanced_head(m, &cfg, a.work);
                                    let Ok(e) = evaluate_with(m, hw, &cfg, a) else {
                                        continue;
                                    };
                                    if e.fits && best.as_ref().is_none_or(|b| e.time.0 < b.time.0) {
                                        best = Some(e);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    best
}

/// An H100 of `mem` GiB in nodes of 8 on InfiniBand 400.
pub(super) fn h100_with(mem: f64) -> Hardware {
    let mut gpu = hardware::H100_SXM;
    gpu.memory = plan3d_core::units::Bytes(mem * plan3d_core::units::GIB);
    Hardware {
        gpu,
        node_size: Some(8),
        network: Network::InfiniBand400,
        ..Hardware::default()
    }
}

/// The search on exactly `gpus` GPUs with global batch `batch` (and the
/// rest of `space`) against brute force over `schedules`: both find a plan
/// or neither, and the same time. Returns the search's plan.
pub(super) fn search_is_brute(
    m: &ModelShape,
    hw: &Hardware,
    gpus: u64,
    batch: u64,
    a: &Assumptions,
    space: Space,
    schedules: &[PipelineSchedule],
) -> Option<Evaluation> {
    let c = Constraints {
        exact_gpus: Some(gpus),
        ..Constraints::default()
    };
    let space = Space {
        global_batch: Some(batch),
        ..space
    };
    let f = practice(m, hw, Parallelism::ThreeD, &c, &space, a).ok();
    let e = brute_with(m, hw, gpus, batch, a, schedules);
    assert_eq!(f.is_some(), e.is_some(), "{gpus} GPUs, batch {batch}");
    let (f, e) = (f?.best.evaluation, e?);
    assert!(f.fits);
    assert!(
        (f.time.0 - e.time.0).abs() <= 1e-9 * e.time.0,
        "{:?} {} vs {:?} {}",
        f.config,
        f.time.0,
        e.config,
        e.time.0
    );
    Some(f)
}

pub(super) const MEGATRON_SCHEDULES: [PipelineSchedule; 2] =
    [PipelineSchedule::OneFOneB, PipelineSchedule::GPipe];

pub(super) fn small(heads: u32, kv_div: u32, layers: u32, seq: u32, head_size: u32) -> ModelShape {
    ModelShape {
        seq_len: seq,
        heads,
        head_size,
        kv_heads: heads / kv_div,
        layers,
        ffn: 4 * heads * head_size,
        gated_mlp: kv_div > 1,
        biases: false,
        vocab: Some(32_000),
        tied_embeddings: false,
        experts: None,
        latent: None,
        hidden: None,
        qk_norm: false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// The search's optimum is brute force's, and it fits.
    #[test]
    fn practice_search_is_brute_force(
        heads in prop::sample::select(vec![4u32, 6, 8, 10, 12, 16]),
        kv_div in prop::sample::select(vec![1u32, 2, 4]),
        layers in 2u32..12,
        seq in prop::sample::select(vec![1024u32, 4096]),
        // 100: widths no tile divides, whose GEMMs run far under the
        // ceiling (the floor by shape must stay a floor).
        head_size in prop::sample::select(vec![64u32, 100, 128]),
        gpus in prop::sample::select(vec![8u64, 16, 24, 32]),
        batch in prop::sample::select(vec![32u64, 48, 64]),
        mem in prop::sample::select(vec![0.05, 0.2, 80.0]),
        flash in any::<bool>(),
        fp8 in any::<bool>(),
    ) {
        prop_assume!(heads % kv_div == 0);
        let m = small(heads, kv_div, layers, seq, head_size);
        let mut gpu = hardware::H100_SXM;
        gpu.memory = plan3d_core::units::Bytes(mem * plan3d_core::units::GIB);
        let hw = Hardware { gpu, node_size: Some(8), network: Network::InfiniBand400, ..Hardware::default() };
        let compute = if fp8 { plan3d_core::cost::assumptions::Compute::Fp8 } else { plan3d_core::cost::assumptions::Compute::Bf16 };
        let a = Assumptions { flash_attention: flash, reserve: plan3d_core::units::Bytes(0.0), compute, ..Assumptions::PRACTICE };
        let c = Constraints { exact_gpus: Some(gpus), ..Constraints::default() };
        let space = Space { global_batch: Some(batch), ..Space::default() };
        let found = practice(&m, &hw, Parallelism::ThreeD, &c, &space, &a).ok();
        let expected = brute(&m, &hw, gpus, batch, &a);
        match (found, expected) {
            (None, None) => {}
            (Some(f), Some(e)) => {
                let f = f.best.evaluation;
                prop_assert!(f.fits);
                prop_assert!((f.time.0 - e.time.0).abs() <= 1e-9 * e.time.0,
                    "search {:?} {} vs brute {:?} {}", f.config, f.time.0, e.config, e.time.0);
            }
            (f, e) => prop_assert!(false, "search {:?} vs brute {:?}", f.map(|r| r.best.evaluation.config), e.map(|e| e.config)),
        }
    }
}

/// Long sequences: the search tries context parallelism, and agrees with
/// brute force over it.
#[test]
fn practice_search_long_sequences_are_brute_force() {
    let mut found_cp = false;
    for (gpus, mem) in [(16u64, 80.0), (32, 80.0), (32, 2.0)] {
        let m = small(8, 2, 4, 32_768, 64);
        // A model this small is bound by an eager CPU's dispatch, which
        // hides the GPU-side trade-offs under test: left out.
        let a = Assumptions {
            reserve: plan3d_core::units::Bytes(0.0),
            op_overhead: 0.0,
            ..Assumptions::PRACTICE
        };
        let space = Space::default();
        if let Some(f) = search_is_brute(
            &m,
            &h100_with(mem),
            gpus,
            16,
            &a,
            space,
            &MEGATRON_SCHEDULES,
        ) {
            found_cp |= f.config.context > 1;
        }
    }
    assert!(found_cp, "no case chose context parallelism");
}

/// Fixed cases that have plans, memory tight and loose: the search equals
/// brute force (guards against a proptest run of empty cases).
#[test]
fn practice_search_fixed_cases() {
    let mut found = 0;
    for (mem, flash) in [
        (80.0, true),
        (80.0, false),
        (3.0, true),
        (3.0, false),
        (1.5, false),
        (0.08, false),
    ] {
        let m = small(16, 4, 8, 4096, 128);
        let mut gpu = hardware::H100_SXM;
        gpu.memory = plan3d_core::units::Bytes(mem * plan3d_core::units::GIB);
        let hw = Hardware {
            gpu,
            node_size: Some(8),
            network: Network::InfiniBand400,
            ..Hardware::default()
        };
        let a = Assumptions {
            flash_attention: flash,
            reserve: plan3d_core::units::Bytes(0.0),
            ..Assumptions::PRACTICE
        };
        let c = Constraints {
            exact_gpus: Some(32),
            ..Constraints::default()
        };
        let space = Space {
            global_batch: Some(64),
            ..Space::default()
        };
        let f = practice(&m, &hw, Parallelism::ThreeD, &c, &space, &a).ok();
        let e = brute(&m, &hw, 32, 64, &a);
        assert_eq!(f.is_some(), e.is_some(), "{mem} {flash}");
        if let (Some(f), Some(e)) = (f, e) {
            found += 1;
            let f = f.best.evaluation;
            assert!(
                (f.time.0 - e.time.0).abs() <= 1e-9 * e.time.0,
                "{:?} vs {:?}",
                f.config,
                e.config
            );
        }
    }
    assert!(found >= 4, "{found}");
}

/// Fixed dimensions stay fixed; a budget is never exceeded; a target time
/// gives the fewest GPUs that meet it.
#[test]
fn practice_constraints_hold() {
    let m = model::LLAMA_3_1_70B;
    let hw = Hardware {
        gpu: hardware::H100_SXM,
        node_size: Some(8),
        network: Network::InfiniBand400,
        ..Hardware::default()
    };
    let a = Assumptions {
        tokens: Some(15e12),
        ..Assumptions::PRACTICE
    };
    let space = Space {
        pipe: Some(4),
        recompute: Some(ActivationModel::Full),
        global_batch: Some(1024),
        ..Space::default()
    };
    let c = Constraints {
        max_gpus: Some(2048),
        ..Constraints::default()
    };
    let r = practice(&m, &hw, Parallelism::ThreeD, &c, &space, &a)
        .unwrap()
        .best
        .evaluation;
    assert_eq!(r.config.pipe, 4);
    assert_eq!(r.config.activation, ActivationModel::Full);
    assert_eq!(r.batch, 1024);
    assert!(r.gpus <= 2048 && r.fits);
    let target = Constraints {
        target_days: Some(60.0),
        ..Constraints::default()
    };
    let t = practice(
        &m,
        &hw,
        Parallelism::ThreeD,
        &target,
        &Space {
            global_batch: Some(1024),
            ..Space::default()
        },
        &a,
    )
    .unwrap()
    .best
    .evaluation;
    assert!(t.time.days() <= 60.0);
    // Nothing with fewer GPUs meets the target.
    let fewer = Constraints {
        max_gpus: Some(t.gpus - 1),
        ..Constraints::default()
    };
    if let Ok(f) = practice(
        &m,
        &hw,
        Parallelism::ThreeD,
        &fewer,
        &Space {
            global_batch: Some(1024),
            ..Space::default()
        },
        &a,
    ) {
        assert!(
            f.best.evaluation.time.days() > 60.0,
            "{} GPUs in {} days",
            f.best.evaluation.gpus,
            f.best.evaluation.time.days()
        );
    }
}

/// Where memory binds, the search reaches for ZeRO-R: GPT-3 175B on 96
/// A100-40GB without sequence parallelism and a single stage of ZeRO-3 /
/// FSDP fits only with its checkpoints in CPU memory (P_a+cpu), and that
/// plan beats every plan with the checkpoints kept; a fixed GPipe schedule
/// holds every micro-batch and is never faster than 1F1B.
#[test]
fn practice_search_offloads_checkpoints_when_memory_binds() {
    let m = model::GPT_3;
    let hw = Hardware {
        gpu: hardware::A100_40GB,
        node_size: Some(8),
        ..Hardware::default()
    };
    let a = Assumptions::PRACTICE;
    let c = Constraints {
        exact_gpus: Some(96),
        ..Constraints::default()
    };
    let no_sp = Space {
        sequence_parallel: Some(false),
        method: Some(plan3d_core::Method::Partitioned),
        pipe: Some(1),
        ..Space::default()
    };
    let best = practice(&m, &hw, Parallelism::ThreeD, &c, &no_sp, &a)
        .unwrap()
        .best
        .evaluation;
    assert_eq!(best.config.zero_r, ZeroR::PaCpu);
    assert!(best.fits && best.stages.iter().any(|s| s.host.0 > 0.0));
    let kept = practice(
        &m,
        &hw,
        Parallelism::ThreeD,
        &c,
        &Space {
            zero_r: Some(ZeroR::None),
            ..no_sp
        },
        &a,
    );
    assert!(kept.map_or(true, |k| k.best.evaluation.time.0 >= best.time.0));

    let h100 = Hardware {
        gpu: hardware::H100_SXM,
        node_size: Some(8),
        network: Network::InfiniBand400,
        ..Hardware::default()
    };
    let c = Constraints {
        exact_gpus: Some(256),
        ..Constraints::default()
    };
    let one = practice(
        &model::LLAMA_3_1_70B,
        &h100,
        Parallelism::ThreeD,
        &c,
        &Space::default(),
        &a,
    )
    .unwrap()
    .best
    .evaluation;
    let gpipe = practice(
        &model::LLAMA_3_1_70B,
        &h100,
        Parallelism::ThreeD,
        &c,
        &Space {
            pipeline_schedule: Some(PipelineSchedule::GPipe),
            ..Space::default()
        },
        &a,
    )
    .unwrap()
    .best
    .evaluation;
    assert_eq!(gpipe.config.pipeline_schedule, PipelineSchedule::GPipe);
    assert!(gpipe.time.0 >= one.time.0);
}

/// `--pipeline-schedule any`: the search tries ZB-H1, ZB-V and DualPipe
/// beside 1F1B and agrees with brute force over every schedule; ZB-H1 and
/// ZB-V each win somewhere the bubble is large.
#[test]
fn practice_search_with_zero_bubble_is_brute_force() {
    let (mut found_zb, mut found_zbv) = (false, false);
    for (gpus, batch, mem, seq, width) in [
        (16u64, 16u64, 80.0, 1024, 64),
        (32, 32, 80.0, 1024, 64),
        (32, 64, 0.5, 1024, 64),
        (16, 48, 0.2, 1024, 64),
        (16, 32, 80.0, 4096, 64),
        (16, 32, 0.5, 4096, 64),
        (16, 16, 80.0, 4096, 256),
        (32, 32, 80.0, 4096, 256),
        (32, 24, 3.0, 4096, 256),
        (32, 16, 0.6, 4096, 256),
        (16, 32, 0.8, 4096, 256),
    ] {
        let mut m = small(8, 2, 8, seq, width);
        if width > 64 {
            // A small vocabulary: ZB-V puts the embedding and the head on
            // one device, which a 32 k vocabulary makes the slowest here.
            m.vocab = Some(2048);
        }
        // Gradients kept and reduced in fp32 (Megatron-LM's
        // `--accumulate-allreduce-grads-in-fp32`): the state that makes a
        // deeper pipeline, and so ZB-V, worth it in the small-memory case.
        let a = Assumptions {
            reserve: plan3d_core::units::Bytes(0.0),
            gradient_reduce_bytes: 4.0,
            ..Assumptions::PRACTICE
        };
        let space = Space {
            zero_bubble: true,
            ..Space::default()
        };
        if let Some(f) = search_is_brute(
            &m,
            &h100_with(mem),
            gpus,
            batch,
            &a,
            space,
            &PipelineSchedule::ALL,
        ) {
            found_zb |= f.config.pipeline_schedule == PipelineSchedule::ZbH1;
            found_zbv |= f.config.pipeline_schedule == PipelineSchedule::ZbV;
        }
    }
    assert!(found_zb, "no case chose ZB-H1");
    assert!(found_zbv, "no case chose ZB-V");
}

/// With the pipeline fixed at 4 stages (its layers split evenly: a split
/// that counts this small model's head lets 1F1B win), `any` schedule
/// picks DualPipe where its smaller bubble outweighs its doubled weights,
/// and the plan is no slower than every schedule evaluated at the same
/// degrees.
#[test]
fn dualpipe_where_the_pipeline_is_fixed() {
    let m = small(8, 2, 8, 4096, 64);
    let hw = h100_with(80.0);
    // Without an eager CPU's dispatch, which binds a model this small.
    let a = Assumptions {
        op_overhead: 0.0,
        ..Assumptions::PRACTICE
    };
    let c = Constraints {
        exact_gpus: Some(16),
        ..Constraints::default()
    };
    let space = Space {
        pipe: Some(4),
        global_batch: Some(32),
        zero_bubble: true,
        head_layers: Some(0),
        ..Space::default()
    };
    let best = practice(&m, &hw, Parallelism::ThreeD, &c, &space, &a)
        .unwrap()
        .best
        .evaluation;
    assert_eq!(best.config.pipeline_schedule, PipelineSchedule::DualPipe);
    for s in PipelineSchedule::ALL {
        let cfg = Config {
            pipeline_schedule: s,
            ..best.config
        };
        if let Ok(e) = evaluate_with(&m, &hw, &cfg, &a) {
            assert!(best.time.0 <= e.time.0 * (1.0 + 1e-12), "{s:?}");
        }
    }
}

/// Under every framework preset (gradients freed between steps, AMP's weight
/// casts, FSDP's gathered layers, torchtitan's per-op checkpointing and
/// pipelines, FP8 weights) the search's floors stay floors: it equals brute
/// force, memory tight and loose.
#[test]
fn practice_search_is_brute_force_under_every_framework() {
    let mut plans = 0;
    for (f, compute) in Framework::ALL.into_iter().flat_map(|f| {
        [
            plan3d_core::cost::assumptions::Compute::Bf16,
            plan3d_core::cost::assumptions::Compute::Fp8,
        ]
        .map(|c| (f, c))
    }) {
        for (gpus, batch, mem) in [(16u64, 32u64, 80.0), (16, 32, 1.0), (32, 64, 0.5)] {
            let m = small(8, 2, 8, 2048, 64);
            let a = Assumptions {
                reserve: plan3d_core::units::Bytes(0.0),
                compute,
                ..f.apply(Assumptions::PRACTICE)
            };
            if search_is_brute(
                &m,
                &h100_with(mem),
                gpus,
                batch,
                &a,
                Space::default(),
                &MEGATRON_SCHEDULES,
            )
            .is_some()
            {
                plans += 1;
            }
        }
    }
    assert!(plans >= 24, "{plans} cases with a plan");
}
