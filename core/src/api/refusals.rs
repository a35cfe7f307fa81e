//! What the paper's setting would ignore of a request: the practice
//! fields it sets, which `plan` and `evaluate` refuse under `paper` in
//! words naming them (split from `parse.rs`).

use super::request::{PlanRequest, PracticeRequest};

/// The practice fields a request sets, by request name, in the order of
/// [`PracticeRequest`] (`assumptions` apart).
fn practice_fields(p: &PracticeRequest) -> impl Iterator<Item = &'static str> {
    [
        ("virtual_stages", p.virtual_stages.is_some()),
        ("microbatch_group", p.microbatch_group.is_some()),
        ("sequence_parallel", p.sequence_parallel.is_some()),
        ("zero", p.zero.is_some()),
        ("recompute", p.recompute.is_some()),
        ("pipeline_schedule", p.pipeline_schedule.is_some()),
        ("zero_r", p.zero_r.is_some()),
        ("global_batch", p.global_batch.is_some()),
        ("tokens", p.tokens.is_some()),
        ("optimizer", p.optimizer.is_some()),
        ("context_parallel", p.context_parallel.is_some()),
        ("precision", p.precision.is_some()),
        ("expert_parallel", p.expert_parallel.is_some()),
        ("expert_tensor_parallel", p.expert_tensor_parallel.is_some()),
        ("expert_imbalance", p.expert_imbalance.is_some()),
        ("overlap_expert", p.overlap_expert.is_some()),
        ("compile", p.compile.is_some()),
        ("expandable_segments", p.expandable_segments.is_some()),
        ("attention", p.attention.is_some()),
        ("overlap_tensor", p.overlap_tensor.is_some()),
        ("overlap_data", p.overlap_data.is_some()),
        ("head_layers", p.head_layers.is_some()),
        ("embedding_layers", p.embedding_layers.is_some()),
        ("cross_entropy", p.cross_entropy.is_some()),
        ("activation_layout", p.activation_layout.is_some()),
        ("checkpoint_early_stop", p.checkpoint_early_stop.is_some()),
        ("context_exchange", p.context_exchange.is_some()),
        ("repeat_kv", p.repeat_kv.is_some()),
        ("norm_kernel", p.norm_kernel.is_some()),
        ("framework", p.framework.is_some()),
        ("grad_reduce", p.grad_reduce.is_some()),
        ("recompute_layers", p.recompute_layers.is_some()),
        ("offload_layers", p.offload_layers.is_some()),
        ("recompute_modules", p.recompute_modules.is_some()),
        ("offload_modules", p.offload_modules.is_some()),
        ("profile", p.profile.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
}

/// The first field of a plan request that only the practice search reads
/// (the paper's search would ignore it), by its request name: the layout
/// it fixes, then every practice field.
pub(super) fn practice_only(r: &PlanRequest) -> Option<&'static str> {
    [
        ("data", r.data.is_some()),
        ("pipe", r.pipe.is_some()),
        ("micro_batch", r.micro_batch.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .chain(practice_fields(&r.practice))
    .next()
}

/// The first field of an evaluate request that the paper's evaluation
/// does not read (it would echo it and count without it), by its request
/// name: every practice field but `recompute` and `global_batch`.
pub(super) fn paper_ignores(p: &PracticeRequest) -> Option<&'static str> {
    practice_fields(p).find(|f| !matches!(*f, "recompute" | "global_batch"))
}
