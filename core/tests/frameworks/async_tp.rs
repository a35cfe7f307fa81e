//! torchtitan's async TP against its June 2025 benchmark.

use super::{json, predicted};

/// One torchtitan step over TP 8 on Meta's 500 W H100s, compiled (unless
/// `knobs` say), FSDP over `data` ranks with a local batch of `micro` in
/// one micro-batch, its activations batch-first as in June 2025, and
/// `knobs` (JSON fields) over it: the evaluation's report.
fn torchtitan_tp8(model: &str, data: u32, micro: u32, knobs: &str) -> serde_json::Value {
    let compile = if knobs.contains("\"compile\"") {
        ""
    } else {
        r#""compile": true,"#
    };
    let r = format!(
        r#"{{ "model": "{model}", "gpu": "h100-96gb-500w", "node_size": 8,
            "network": "infiniband-400", "framework": "torchtitan", "method": "partitioned",
            "zero": "3", "data": {data}, "tensor": 8, "micro_batch": {micro}, "micro_batches": 1,
            "global_batch": {global}, {compile} "activation_layout": "batch-first", {knobs} }}"#,
        global = data * micro
    );
    serde_json::from_str(&plan3d_core::api::json::call("evaluate", &r).unwrap()).unwrap()
}

/// torchtitan's async TP (June 2025: Llama 3 8B on 64 and 70B on 256 of
/// Meta's 500 W H100s, TP 8, BF16 and float8, compiled) sped its steps up
/// 1.09–1.16×. PyTorch's micro-pipelined TP fuses every forward
/// collective but leaves the backward's two input-gradient
/// reduce-scatters whole, and a fused pair lasts as long as the longer of
/// its copy and its GEMM: plan3d's speed-up within 0.1 of each measured
/// one (hiding every collective under the layer's GEMMs, as Transformer
/// Engine's userbuffers do, gave 1.25–1.34×). By hand: collectives of 2,
/// GEMMs of 1, 3, 5 and 0.5 forward, the data gradients' 1.5 and 4 after
/// the gathers, expose 1 + 1.5 forward, 0.5 backward and the two
/// reduce-scatters' 4.
#[test]
fn async_tensor_parallelism_hides_what_pytorch_fuses() {
    use plan3d_core::cost::step::micro_pipelined_exposure;
    let (gemms, backward) = ([1.0, 3.0, 5.0, 0.5], [9.0, 1.5, 9.0, 4.0]);
    assert_eq!(micro_pipelined_exposure(2.0, 1.0, gemms, backward), 7.0);
    assert_eq!(micro_pipelined_exposure(2.0, 2.0, gemms, backward), 9.5);
    let t = json("published/torchtitan.json");
    let rows: Vec<_> = t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["source"] == "tt_asynctp_2506" && predicted(r).is_some())
        .collect();
    assert_eq!(rows.len(), 8);
    for pair in rows.chunks(2) {
        let (vanilla, fused) = (pair[0], pair[1]);
        assert_eq!(
            (vanilla["async_tp"].as_bool(), fused["async_tp"].as_bool()),
            (Some(false), Some(true))
        );
        let tps = |r: &serde_json::Value| r["tps_per_gpu"].as_f64().unwrap();
        let measured = tps(fused) / tps(vanilla);
        let plan3d = predicted(fused).unwrap().0 / predicted(vanilla).unwrap().0;
        println!(
            "{} on {} {}: async TP {measured:.3}× measured, plan3d {plan3d:.3}×",
            vanilla["model"], vanilla["gpus"], vanilla["label"]
        );
        assert!((plan3d - measured).abs() < 0.1, "{plan3d} {measured}");
    }
    // Without sequence parallelism the layer's all-reduces match none of
    // the pass's patterns: async TP hides nothing.
    let step = |overlap: bool, sp: bool| {
        let knobs = format!(
            r#""recompute": "selective", "overlap_tensor": {overlap}, "sequence_parallel": {sp}"#
        );
        torchtitan_tp8("llama-3.1-8b", 8, 12, &knobs)["step_seconds"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(step(true, false), step(false, false));
    assert!(step(true, true) < step(false, true));
}

/// torchtitan's per-op checkpointing saves the reduce-scatters' outputs
/// but not the all-gathers' (`_save_list`), so its backward gathers each
/// layer's attention and feed-forward inputs again: five all-reduces'
/// worth of tensor-parallel traffic a layer where no recomputation moves
/// four and full recomputation six. Exposed whole without overlap.
/// Llama 3 8B at TP 8 on 64 GPUs (vanilla TP, BF16): +24.7 → +18.0 %
/// against torchtitan's June 2025 row, float8 +16.5 → +9.8 %. A full
/// recomputation that stops before the down projection (compiled, whose
/// partitioner recomputes only what the backward reads, or a checkpoint
/// with PyTorch's early stop) skips that GEMM's reduction: a
/// reduce-scatter, half an all-reduce's worth, with sequence parallelism
/// (11 of 8 halves), a whole all-reduce without (5 of 4).
#[test]
fn per_op_checkpointing_gathers_the_tensor_inputs_again() {
    let tensor = |recompute: &str, sp: bool, compile: bool| {
        let knobs = format!(
            r#""recompute": "{recompute}", "overlap_tensor": false, "sequence_parallel": {sp},
                "compile": {compile}"#
        );
        torchtitan_tp8("llama-3.1-8b", 8, 12, &knobs)["step"]["tensor"]
            .as_f64()
            .unwrap()
    };
    for sp in [true, false] {
        let none = tensor("none", sp, false);
        assert!(none > 0.1, "{none}");
        assert!(
            (tensor("selective", sp, false) / none - 1.25).abs() < 1e-9,
            "sp {sp}"
        );
        assert!(
            (tensor("full", sp, false) / none - 1.5).abs() < 1e-9,
            "sp {sp}"
        );
        let stops = if sp { 11.0 / 8.0 } else { 5.0 / 4.0 };
        assert!(
            (tensor("full", sp, true) / tensor("none", sp, true) - stops).abs() < 1e-9,
            "sp {sp}"
        );
    }
}

/// torchao's float8 tensor parallelism, which torchtitan applies with
/// tensorwise float8, gathers float8 (the layer's input forward, the
/// output gradient backward) and reduce-scatters the bf16 GEMM outputs:
/// three quarters of bf16's tensor-parallel bytes. Llama 3.1 70B on 256
/// H100s (FSDP 32 × TP 8, float8, June 2025): −5.7 → +0.2 % against
/// torchtitan's row; its December 2024 "2D" row −13.3 → −8.2 %. By hand
/// under async TP: gathers of 1, scatters of 2 and the GEMMs of
/// [`async_tensor_parallelism_hides_what_pytorch_fuses`] leave 1.5
/// exposed forward (the down projection's scatter), none of the
/// backward's gathers and its two scatters' 4.
#[test]
fn float8_tensor_parallelism_gathers_a_byte_an_element() {
    use plan3d_core::cost::step::micro_pipelined_split;
    let (gemms, backward) = ([1.0, 3.0, 5.0, 0.5], [9.0, 1.5, 9.0, 4.0]);
    assert_eq!(micro_pipelined_split(1.0, 2.0, 1.0, gemms, backward), 5.5);
    assert_eq!(micro_pipelined_split(2.0, 2.0, 1.0, gemms, backward), 7.0);
    let tensor = |precision: &str, sp: bool| {
        let knobs = format!(
            r#""recompute": "full", "precision": "{precision}", "overlap_tensor": false,
                "sequence_parallel": {sp}, "compile": false"#
        );
        torchtitan_tp8("llama-3.1-70b", 32, 16, &knobs)["step"]["tensor"]
            .as_f64()
            .unwrap()
    };
    assert!((tensor("fp8", true) / tensor("bf16", true) - 0.75).abs() < 1e-9);
    // Without sequence parallelism the all-reduces stay bf16.
    assert!((tensor("fp8", false) / tensor("bf16", false) - 1.0).abs() < 1e-9);
}

/// PyTorch's tensor parallelism shards `[batch, sequence, hidden]`
/// activations along the sequence, dimension 1, while NCCL gathers and
/// scatters along dimension 0: each all-gather returns
/// `cat(chunk(out, t), dim=1)` of its output (a view with one sequence a
/// micro-batch) and each reduce-scatter first copies its input the same
/// way (`torch/distributed/_functional_collectives.py`; torchtitan#437
/// measured two such copies at 6 % of a feed-forward block). By hand for
/// Llama 3.1 8B (width 4 096) at TP 8: a copy reads and writes 2 × 2 ×
/// 4 096 bytes a token in bf16; per-op checkpointing runs six all-gathers
/// (two forward, two backward, two regathered) and four reduce-scatters,
/// full recomputation six of each; torchao's float8 gathers a byte an
/// element. Megatron's sequence-first layers copy nothing.
///
/// Against torchtitan's rows (Llama 3 8B at TP 8 on 64 H100s, vanilla
/// TP): BF16 +18.0 → +4.5 %, float8 +18.3 → +7.1 %; the out-of-fit H100
/// rows' median 10.2 → 8.9 %. The 70B float8 rows at TP 8, which plan3d
/// already ran slow, went −8.2 → −15.4 % (December 2024) and +0.2 →
/// −8.2 % (June 2025).
#[test]
fn sequence_sharded_collectives_copy_their_tensor_once_more() {
    use plan3d_core::cost::step::layout_copy_bytes_per_token as copies;
    let m = plan3d_core::model::preset("llama-3.1-8b").unwrap();
    let copy = 2.0 * 2.0 * 4096.0;
    assert_eq!(copies(&m, 8.0, 12, 1.0, true, 2.0, false), 10.0 * copy);
    assert_eq!(copies(&m, 8.0, 12, 2.0, false, 2.0, false), 12.0 * copy);
    assert_eq!(copies(&m, 8.0, 12, 2.0, false, 1.0, false), 9.0 * copy);
    // A recomputation that stops before the down projection skips its
    // reduce-scatter: five scatters' copies, not six.
    assert_eq!(copies(&m, 8.0, 12, 2.0, false, 2.0, true), 11.0 * copy);
    // One sequence: the gathers are views, the scatters still copy.
    assert_eq!(copies(&m, 8.0, 1, 1.0, true, 2.0, false), 4.0 * copy);
    assert_eq!(copies(&m, 1.0, 12, 1.0, true, 2.0, false), 0.0);

    // End to end: a step's element-wise time grows with the micro-batch
    // only by the gathers' copies: six a layer with full recomputation,
    // four without. torchtitan today folds the batch into the tokens
    // (`[T, D]`, pytorch/torchtitan#4121) and copies nothing, as
    // Megatron; `activation_layout` `batch-first` runs it as before.
    let elementwise = |framework: &str, recompute: &str, micro: u32| {
        let r = format!(
            r#"{{ "model": "llama-3.1-8b", "gpu": "h100-96gb-500w", "node_size": 8,
                "network": "infiniband-400", "method": "partitioned",
                "zero": "3", "data": 8, "tensor": 8, "sequence_parallel": true,
                "micro_batch": {micro}, "micro_batches": {count}, "global_batch": 16,
                "recompute": "{recompute}", "compile": true, {framework} }}"#,
            count = 2 / micro
        );
        let out: serde_json::Value =
            serde_json::from_str(&plan3d_core::api::json::call("evaluate", &r).unwrap()).unwrap();
        out["step"]["elementwise"].as_f64().unwrap()
    };
    let grown = |framework: &str, recompute: &str| {
        elementwise(framework, recompute, 2) - elementwise(framework, recompute, 1)
    };
    let before = r#""framework": "torchtitan", "activation_layout": "batch-first""#;
    let (full, none) = (grown(before, "full"), grown(before, "none"));
    assert!(none > 0.0);
    assert!((full / none - 1.5).abs() < 1e-9, "{full} {none}");
    for today in [
        r#""framework": "torchtitan""#,
        r#""framework": "megatron-core""#,
        r#""framework": "torchtitan", "activation_layout": "tokens""#,
    ] {
        let grown = grown(today, "full");
        assert!(
            grown.abs() < 1e-12 * elementwise(today, "full", 1),
            "{today}"
        );
    }
    // Hugging Face's DTensor plans shard `[batch, sequence, hidden]`.
    let hf = grown(r#""framework": "pytorch-fsdp""#, "full");
    assert!((hf / full - 1.0).abs() < 1e-9, "{hf} {full}");
}
