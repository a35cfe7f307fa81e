//! Hand-derived values for the formulas outside the paper's tables.

use plan3d_core::{
    estimate::training_time,
    evaluate,
    hardware::{self, A100_80GB},
    model::{self, preset, x_family},
    round_sig, zero, ActivationModel, Config, Error, Hardware, Method, Network, TransferKind,
};

#[test]
fn round_sig_ties_to_even_like_the_paper() {
    assert_eq!(round_sig(61_250.0, 3), 61_200.0);
    assert_eq!(round_sig(61_350.0, 3), 61_400.0);
    assert_eq!(round_sig(0.3885, 3), 0.388);
    assert_eq!(round_sig(2.0e-7, 2), 2.0e-7);
    assert_eq!(round_sig(-1234.0, 2), -1200.0);
}

#[test]
fn presets_by_name() {
    assert_eq!(preset("BERT").unwrap(), model::BERT);
    assert_eq!(preset(" gpt-3 ").unwrap(), model::GPT_3);
    assert_eq!(preset("X160").unwrap(), x_family(160).unwrap());
    assert_eq!(preset("x3"), Err(Error::OddX { x: 3 }));
    assert!(preset("x0").unwrap_err().is_out_of_range());
    assert!(preset("x99999999999999").unwrap_err().is_out_of_range());
    assert_eq!(preset("gpt-5"), Err(Error::Unknown { what: "model" }));
    assert_eq!(preset(""), Err(Error::Unknown { what: "model" }));
}

#[test]
fn exact_counts_of_models_with_embeddings() {
    // Llama 3.1 405B: 126 × (2·16384² + 2·16384·1024 + 3·16384·53248 +
    // 2·16384) + 2·128256·16384 + 16384 = 405,853,388,800.
    assert_eq!(model::LLAMA_3_1_405B.params_exact(), 405_853_388_800.0);
    // Megatron 1T (PTD-P Table 1 prints 1008 B): 128 × (12·25600² +
    // 13·25600) + 51200·25600 + 2·25600.
    let p = model::MEGATRON_1T.params_exact();
    assert_eq!(
        p,
        128.0 * (12.0 * 25600f64.powi(2) + 13.0 * 25600.0) + 51200.0 * 25600.0 + 51200.0
    );
    assert_eq!(round_sig(p, 4), 1.008e12);
}

#[test]
fn zero_stages_reproduce_figure_1() {
    // ZeRO fig. 1: Ψ = 7.5B, N_d = 64, K = 12: 120, 31.4, 16.6, 1.9 GB.
    let gb = |stage| zero::zero(7.5e9, 64, stage, 12.0).unwrap().total().get() / 1e9;
    assert_eq!(gb(0), 120.0);
    assert_eq!(round_sig(gb(1), 3), 31.4);
    assert_eq!(round_sig(gb(2), 3), 16.6);
    assert_eq!(round_sig(gb(3), 2), 1.9);
    let s2 = zero::zero(7.5e9, 64, 2, 12.0).unwrap();
    assert_eq!(s2.params.get(), 15e9);
    assert_eq!(s2.grads.get(), 15e9 / 64.0);
    assert_eq!(s2.comm_volume_elements, 15e9);
    assert_eq!(
        zero::zero(7.5e9, 64, 3, 12.0).unwrap().comm_volume_elements,
        22.5e9
    );
    assert!(zero::zero(7.5e9, 64, 4, 12.0).is_err());
    assert!(zero::zero(f64::NAN, 64, 1, 12.0).is_err());
    assert!(zero::zero(7.5e9, 0, 1, 12.0).is_err());
}

#[test]
fn ptd_p_training_time_estimates() {
    // PTD-P sec. 5.1: 175B on 300B tokens, 1024 GPUs at 140 Tflop/s: 34 days;
    // 1T on 450B tokens, 3072 GPUs at 163 Tflop/s: 84 days.
    let t = training_time(175e9, 300e9, 1024.0, 140e12, 8.0).unwrap();
    assert_eq!(t.days().round(), 34.0);
    let t = training_time(1008e9, 450e9, 3072.0, 163e12, 8.0).unwrap();
    assert_eq!(t.days().round(), 84.0);
    // Without recomputation: 6 instead of 8.
    let t6 = training_time(1008e9, 450e9, 3072.0, 163e12, 6.0).unwrap();
    assert!((t6.get() / t.get() - 0.75).abs() < 1e-12);
    assert!(training_time(1e9, 1e9, 0.0, 1e12, 8.0).is_err());
    assert!(training_time(1e9, f64::INFINITY, 8.0, 1e12, 8.0).is_err());
}

#[test]
fn selective_and_no_recomputation_follow_korthikanti() {
    // GPT-3, t = 8, micro-batch 1, no pipeline: selective keeps
    // s·b·h·L·(10 + 24/t) bytes, none adds 5·a·s/(h·t) per token and width.
    let m = model::GPT_3;
    let hw = Hardware::default();
    let cfg = |activation| Config {
        tensor: 8,
        activation,
        ..Config::default()
    };
    let sel = evaluate(&m, &hw, &cfg(ActivationModel::Selective)).unwrap();
    let (s, h, l) = (2048.0, 12288.0, 96.0);
    assert_eq!(sel.memory.activations.get(), s * h * l * (10.0 + 3.0));
    assert_eq!(sel.memory.checkpoints.get(), 0.0);
    let none = evaluate(&m, &hw, &cfg(ActivationModel::None)).unwrap();
    let extra = 5.0 * 96.0 * s / (h * 8.0);
    assert_eq!(none.memory.activations.get(), s * h * l * (13.0 + extra));
    // Full recomputation: 2·s·b·h·L of checkpoints, which the paper also
    // partitions over the tensor dimension (C.3): / 8 here.
    let full = evaluate(&m, &hw, &cfg(ActivationModel::Full)).unwrap();
    assert_eq!(full.memory.checkpoints.get(), 2.0 * s * h * l / 8.0);
    // 6 instead of 8 flop per token and parameter.
    assert!((none.total_flops.get() / full.total_flops.get() - 0.75).abs() < 1e-12);
}

#[test]
fn hardware_presets_and_networks() {
    assert_eq!(hardware::gpu("A100-80GB").unwrap(), A100_80GB);
    assert!(hardware::gpu("tpu").is_err());
    for g in hardware::GPUS {
        assert_eq!(hardware::gpu(g.name).unwrap().name, g.name);
    }
    for n in Network::ALL {
        assert_eq!(Network::parse(n.name()).unwrap(), n);
    }
    // H100: 989e12 / 900e9 = 1099 flop/B over NVLink 4.
    let hw = Hardware {
        gpu: hardware::H100_SXM,
        ..Hardware::default()
    };
    assert_eq!(
        round_sig(hw.threshold(plan3d_core::Link::NvLink).get(), 4),
        1099.0
    );
    // InfiniBand 400 (100 GB/s) is faster than an A100's PCIe 4 (63 GiB/s):
    // the PCIe link then binds the network traffic.
    let hw = Hardware {
        network: Network::InfiniBand400,
        ..Hardware::default()
    };
    assert_eq!(
        hw.network_threshold(),
        hw.threshold(plan3d_core::Link::Pcie)
    );
    // A Grace superchip's GPU reaches its CPU memory over NVLink-C2C, at
    // half the Grace's 512 GB/s of LPDDR5X, not over PCIe (63 GB/s, as
    // the HGX B200's half of its link).
    for g in [hardware::GB200, hardware::GB300] {
        assert_eq!(g.cpu_gpu.0, 256e9, "{}", g.name);
    }
    assert_eq!(hardware::B200.cpu_gpu.0, 63e9);
    // A GPU's usual network is said only where a plan may leave its node
    // and the usual one is faster than the default 200 Gb/s.
    let on = |gpu, node: Option<u32>| Hardware {
        gpu,
        node_size: node,
        ..Hardware::default()
    };
    let h100 = on(hardware::H100_SXM, Some(8));
    assert_eq!(hardware::faster_usual_network(&h100, Some(8)), None);
    assert_eq!(
        hardware::faster_usual_network(&h100, Some(16)),
        Some(Network::InfiniBand400)
    );
    assert_eq!(
        hardware::faster_usual_network(&h100, None),
        Some(Network::InfiniBand400)
    );
    // No node limit (sec. 7): every plan stays in its NVLink domain.
    let unlimited = on(hardware::H100_SXM, None);
    assert_eq!(
        hardware::faster_usual_network(&unlimited, Some(1 << 20)),
        None
    );
    assert_eq!(
        hardware::faster_usual_network(&on(A100_80GB, Some(16)), None),
        None
    );
    assert_eq!(
        hardware::faster_usual_network(&on(hardware::GB300, Some(72)), Some(144)),
        Some(Network::InfiniBand800)
    );
}

#[test]
fn errors_name_the_problem() {
    let x160 = x_family(160).unwrap();
    let hw = Hardware::default();
    let bad = |cfg: Config| evaluate(&x160, &hw, &cfg).unwrap_err();
    assert!(bad(Config {
        tensor: 96,
        ..Config::default()
    })
    .is_out_of_range());
    assert_eq!(
        bad(Config {
            tensor: 20,
            ..Config::default()
        }),
        Error::TensorAboveNode {
            tensor: 20,
            node_size: 16
        }
    );
    assert_eq!(
        bad(Config {
            method: Method::Improved,
            pipe: 8,
            micro_batches: 4,
            ..Config::default()
        }),
        Error::TooFewMicroBatches {
            micro_batches: 4,
            pipe: 8
        }
    );
    assert!(bad(Config {
        pipe: 161,
        micro_batches: 200,
        ..Config::default()
    })
    .is_out_of_range());
    assert!(bad(Config {
        data: 0,
        ..Config::default()
    })
    .is_out_of_range());
    // Without a node limit, tensor 40 is fine (sec. 7, fig. 5).
    let free = Hardware {
        node_size: None,
        ..hw
    };
    let e = evaluate(
        &x160,
        &free,
        &Config {
            tensor: 40,
            ..Config::default()
        },
    )
    .unwrap();
    assert!(e.transfers.get(TransferKind::Tensor).is_some());
    let msg = Error::TensorAboveNode {
        tensor: 20,
        node_size: 16,
    }
    .to_string();
    assert!(msg.contains("node size 16"), "{msg}");
}

#[test]
fn overlapped_transfers_cost_the_excess_only() {
    // The Data baseline of Table 6.1 with b_µ = 1: eq. 5 gives
    // 3·2560/4 = 1920 flop/B < 5811, so the backward pass of the last
    // micro-batch (3/4 of the step) stretches by 5811/1920 − 1.
    let x160 = x_family(160).unwrap();
    let hw = Hardware::default();
    let e = evaluate(
        &x160,
        &hw,
        &Config {
            data: 483,
            ..Config::default()
        },
    )
    .unwrap();
    let t = e.transfers.get(TransferKind::DataBackward).unwrap();
    assert_eq!(t.intensity.get(), 1920.0);
    let nu_ib = hw.threshold(plan3d_core::Link::InfiniBand).get();
    assert!((e.overheads.data - 0.75 * (nu_ib / 1920.0 - 1.0)).abs() < 1e-12);
    assert!(!t.hidden());
}

#[test]
fn uneven_head_split_costs_its_imbalance() {
    // X160 has 80 heads: 32 devices hold ⌈80/32⌉ = 3 heads at most, 96/80 of
    // the even share, on the attention third of the weights: 6.67 %.
    let free = Hardware {
        node_size: None,
        ..Hardware::default()
    };
    let e = evaluate(
        &x_family(160).unwrap(),
        &free,
        &Config {
            tensor: 32,
            ..Config::default()
        },
    )
    .unwrap();
    assert!((e.overheads.imbalance - 0.2 / 3.0).abs() < 1e-12);
    let even = evaluate(
        &x_family(160).unwrap(),
        &free,
        &Config {
            tensor: 40,
            ..Config::default()
        },
    )
    .unwrap();
    assert_eq!(even.overheads.imbalance, 0.0);
}

/// One parser for every count people type: decimal and binary suffixes,
/// byte units after a suffix, and nothing else (no `inf`, no `nan`, no
/// negative numbers, no lone binary `i`).
#[test]
fn counts_are_read_in_the_units_people_type() {
    use plan3d_core::units::{parse_count, parse_whole};
    let cases: [(&str, f64); 16] = [
        ("2048", 2048.0),
        ("15.6e12", 15.6e12),
        ("15.6T", 15.6e12),
        ("2.87T", 2.87e12),
        ("252M", 252e6),
        ("4k", 4e3),
        ("4K", 4e3),
        ("175B", 175e9),
        ("175G", 175e9),
        ("16Mi", 16.0 * 1_048_576.0),
        ("16Ki", 16_384.0),
        ("2Gi", 2.0 * 1_073_741_824.0),
        ("1Ti", 1_099_511_627_776.0),
        ("80GiB", 80.0 * 1_073_741_824.0),
        ("1GB", 1e9),
        (" 0 ", 0.0),
    ];
    for (text, want) in cases {
        assert_eq!(parse_count(text), Some(want), "{text}");
    }
    for bad in [
        "", "16Q", "inf", "NaN", "-1", "16mi", "i", "Ki", "1e400", "B", "2BB", "1.2.3", "16 Mi x",
    ] {
        assert_eq!(parse_count(bad), None, "{bad:?}");
    }
    assert_eq!(parse_whole("16Ki"), Some(16_384));
    assert_eq!(parse_whole("16Mi"), Some(16_777_216));
    assert_eq!(parse_whole("1.5"), None);
    assert_eq!(parse_whole("1e19"), None);
    // Llama 3's "16M" batch: 2 048 sequences of 8 192 tokens.
    assert_eq!(parse_whole("16Mi"), Some(2048 * 8192));
}

/// Numbers in words, as the page and the CLI say them: a step of 4 320 s
/// in minutes, a loss of 152 s in minutes, not "0.0422 h".
#[cfg(feature = "alloc")]
#[test]
fn times_read_in_the_unit_that_fits() {
    use plan3d_core::text::{duration, seconds, span};
    assert_eq!(seconds(8.318), "8.32 s");
    assert_eq!(seconds(4320.0), "72 min");
    assert_eq!(seconds(10_800.0), "3 h");
    assert_eq!(span(0.0422 * 3600.0), "2.5 min");
    assert_eq!(span(0.00171 * 3600.0), "6.2 s");
    assert_eq!(span(13.6 * 3600.0), "13.6 h");
    assert_eq!(span(5.7e3 * 3600.0), "238 days");
    assert_eq!(duration(10_899.0), "29.9 years");
}

/// Counts as people type them: grouped by thousands with a space, a thin
/// or no-break space, a comma or an underscore; a decimal comma is not a
/// group. And a value out of range is refused for being out of range.
#[test]
fn counts_grouped_by_thousands() {
    use plan3d_core::units::parse_count;
    assert_eq!(parse_count("16 384"), Some(16384.0));
    assert_eq!(parse_count("16\u{202f}384"), Some(16384.0));
    assert_eq!(parse_count("16,384"), Some(16384.0));
    assert_eq!(parse_count("1_048_576"), Some(1_048_576.0));
    assert_eq!(parse_count("15 600 000 000 000"), Some(15.6e12));
    assert_eq!(parse_count("2 048k"), Some(2.048e6));
    assert_eq!(parse_count("1,5"), None);
    assert_eq!(parse_count("16 38"), None);
    assert_eq!(parse_count("1 2 3"), None);
    #[cfg(feature = "alloc")]
    {
        use plan3d_core::state::Inputs;
        let said = |q: &str| {
            let (i, n) = Inputs::from_query(q);
            (
                i.max_gpus,
                n.iter().map(ToString::to_string).collect::<Vec<_>>(),
            )
        };
        assert_eq!(said("gpus=16%20384"), (Some(16384), vec![]));
        let (g, n) = said("gpus=1e12");
        assert_eq!(g, None);
        assert_eq!(
            n,
            ["ignored gpus=1e12: GPU budget must be at most 2³² = 4,294,967,296 GPUs; using no GPU budget"]
        );
        let (_, n) = said("gpus=lots");
        assert!(
            n[0].contains("must be a whole number (16384, 16k or 16Ki)"),
            "{n:?}"
        );
    }
}

/// `decimal` gives Rust's own parse, bit for bit, for what people, URLs
/// and sliders write, and refuses what is not a decimal number.
#[test]
fn decimal_is_rusts_parse_on_decimals() {
    use plan3d_core::units::decimal;
    for s in [
        "0",
        "12",
        "-0.5",
        "15.6e12",
        ".5",
        "5.",
        "0.0005",
        "+3",
        "1e22",
        "123456789012345678",
        "2.5E-3",
        "80",
        "0.1",
        "0.3",
        "16384",
        "1.7e298",
        "4.9e-300",
        "99999999999999999999",
        "3.141592653589793",
        "1e-7",
        "0.000000001",
    ] {
        let want: f64 = s.parse().unwrap();
        let got = decimal(s).unwrap_or_else(|| panic!("{s}"));
        assert_eq!(got.to_bits(), want.to_bits(), "{s}: {got} vs {want}");
    }
    for s in [
        "", "-", ".", "e5", "1e", "inf", "NaN", "1,5", "0x10", "1e400", "1 2", "--1",
    ] {
        assert_eq!(decimal(s), None, "{s}");
    }
}

proptest::proptest! {
    /// Up to 15 significant digits and exponents within ±22: exact.
    #[test]
    fn decimal_fast_path_is_exact(m in 0u64..1_000_000_000_000_000, e in -22i32..=22, dot in 0usize..16) {
        let digits = m.to_string();
        let cut = dot.min(digits.len());
        let s = format!("{}.{}e{e}", &digits[..digits.len() - cut], &digits[digits.len() - cut..]);
        let want: f64 = s.parse().unwrap();
        let got = plan3d_core::units::decimal(&s).unwrap();
        // The mantissa's digits fit 2⁵³; the exponent after the dot's shift
        // may leave ±22: then within an ulp.
        let shift = e - i32::try_from(cut).unwrap();
        if shift.abs() <= 22 {
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", s);
        } else {
            proptest::prop_assert!((got.to_bits() as i64 - want.to_bits() as i64).abs() <= 2, "{}", s);
        }
    }
}

proptest::proptest! {
    /// What `{}` writes for any `f64` from 10⁻²⁹⁸ to 10²⁹⁸ (up to 17
    /// digits, plain or with an exponent) reads back to the same bits: the
    /// page's URL round trip.
    #[test]
    fn decimal_reads_back_what_display_writes(fraction in 0u64..(1 << 52), e in -990i64..=990) {
        // A positive f64 of binary exponent e.
        let x = f64::from_bits(((1023 + e) as u64) << 52 | fraction);
        let s = format!("{x}");
        let got = plan3d_core::units::decimal(&s).unwrap();
        proptest::prop_assert_eq!(got.to_bits(), x.to_bits(), "{}", s);
        let s = format!("{x:e}");
        let got = plan3d_core::units::decimal(&s).unwrap();
        proptest::prop_assert_eq!(got.to_bits(), x.to_bits(), "{}", s);
    }
}
