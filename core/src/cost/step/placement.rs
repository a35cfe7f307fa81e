//! Where layers and micro-batches sit in a pipeline: layers per stage and
//! device (interleaved and V placements), the head's device, micro-batches
//! in flight, and the schedule's bubble.

use super::passes_of;
use crate::cost::config::{Config, PipelineSchedule};

/// Layers of chunk `j` of `chunks` when `layers` layers and the head's
/// `head` layers' worth of work are cut as evenly as whole layers allow,
/// the head on the last chunk: `layers + head` units, ⌊·/chunks⌋ each and
/// the remainder one each to the last chunk, then the first ones; the last
/// chunk's layers are its units less the head's (Megatron-Core's
/// `account_for_loss_in_pipeline_split`, torchtitan's output weight,
/// Llama 3's lighter last stage). The head counts for less where it would
/// leave the last chunk no layer. With `head` 0: the even split (the
/// paper's d_l/p; the remainder's extra layers then go to the first
/// chunks, as before). [`split_layers`] with no embedding.
#[must_use]
pub fn chunk_layers(layers: u32, chunks: u32, head: u32, j: u32) -> u32 {
    split_layers(layers, chunks, 0, head, j)
}

/// [`chunk_layers`] with the embedding's `embedding` layers' worth of work
/// on the first chunk too (Megatron-Core's
/// `account_for_embedding_in_pipeline_split`): `layers + embedding + head`
/// units cut evenly, the first chunk's layers its units less the
/// embedding's. Where there are more chunks than layers (PP 16 × VP 8 for
/// Llama 3.1 405B's 126 layers) a first or last chunk may hold the
/// embedding or the head alone, as Megatron-Core builds it; otherwise each
/// counts for less where it would leave its chunk no layer.
#[must_use]
pub fn split_layers(layers: u32, chunks: u32, embedding: u32, head: u32, j: u32) -> u32 {
    Split::new(layers, chunks, embedding, head).chunk(j)
}

/// A split of `layers` over `chunks` ([`split_layers`]), resolved once for
/// all its chunks.
#[derive(Clone, Copy)]
struct Split {
    chunks: u32,
    /// Embedding and head layers as counted, and the units per chunk.
    e: u32,
    h: u32,
    base: u32,
    rem: u32,
    /// No embedding, no head: the even split of the layers.
    even: bool,
    layers: u32,
}

impl Split {
    #[inline]
    fn new(layers: u32, chunks: u32, embedding: u32, head: u32) -> Self {
        let chunks = chunks.max(1);
        let even = Self {
            chunks,
            e: 0,
            h: 0,
            base: layers / chunks,
            rem: layers % chunks,
            even: true,
            layers,
        };
        if (head == 0 && embedding == 0) || chunks == 1 {
            return even;
        }
        let sparse = layers < chunks;
        let (mut e, mut h) = (embedding.min(layers), head.min(layers));
        loop {
            let units = layers + e + h;
            let (base, rem) = (units / chunks, units % chunks);
            let last = base + u32::from(rem > 0);
            let first = base + u32::from(1 < rem);
            let last_ok = h == 0 || last > h || (sparse && last == h);
            let first_ok = e == 0 || first > e || (sparse && first == e);
            if last_ok && first_ok {
                return Self {
                    e,
                    h,
                    base,
                    rem,
                    even: false,
                    ..even
                };
            }
            h -= u32::from(!last_ok);
            e -= u32::from(!first_ok);
        }
    }

    /// Layers of the chunks `stage + k·pipe`, k < v (the device's chunks
    /// in Megatron's interleaved placement, `chunks` = pipe·v): the sum of
    /// [`Self::chunk`] over them in closed form, so that a device's layers
    /// cost the same at any v (the practice search asks for every stage of
    /// every pipeline degree).
    fn device(self, stage: u32, pipe: u32, v: u32) -> u32 {
        if v <= 1 {
            return self.chunk(stage);
        }
        // How many of the device's chunks j = stage + k·pipe are below `n`.
        let below = |n: u32| {
            if n > stage {
                ((n - stage - 1) / pipe + 1).min(v)
            } else {
                0
            }
        };
        if self.even {
            return v * self.base + below(self.rem);
        }
        // Every chunk as a middle one (base + [j + 1 < rem]), then the
        // first's embedding and the last's own remainder and head.
        let mut sum = i64::from(v * self.base) + i64::from(below(self.rem.saturating_sub(1)));
        if stage == 0 {
            sum -= i64::from(self.e);
        }
        if stage + (v - 1) * pipe + 1 == self.chunks {
            sum += i64::from(self.rem > 0) - i64::from(self.h);
        }
        u32::try_from(sum).unwrap_or(0)
    }

    /// Layers of chunk `j`.
    #[inline]
    fn chunk(self, j: u32) -> u32 {
        if self.even {
            if self.chunks == 1 {
                return self.layers;
            }
            return self.base + u32::from(j < self.rem);
        }
        if j + 1 == self.chunks {
            self.base + u32::from(self.rem > 0) - self.h
        } else if j == 0 {
            self.base + u32::from(1 < self.rem) - self.e
        } else {
            self.base + u32::from(j + 1 < self.rem)
        }
    }
}

/// Layers of each device when `layers` are cut into p·v chunks of near
/// equal size ([`chunk_layers`], the head counting for `head` layers),
/// chunk j on device j mod p (Megatron's interleaved placement): device
/// `stage`'s count.
#[must_use]
pub fn stage_layers(layers: u32, pipe: u32, virtual_stages: u32, head: u32, stage: u32) -> u32 {
    stage_layers_split(layers, pipe, virtual_stages, (0, head), stage)
}

/// [`stage_layers`] with the embedding's and the head's layers
/// ([`split_layers`]).
fn stage_layers_split(
    layers: u32,
    pipe: u32,
    virtual_stages: u32,
    (embedding, head): (u32, u32),
    stage: u32,
) -> u32 {
    Split::new(layers, pipe * virtual_stages, embedding, head).device(stage, pipe, virtual_stages)
}

/// Layers on pipeline device `stage`: [`stage_layers`], or under ZB-V
/// the V's stages `stage` and 2p−1−`stage` of 2p (the last, with the
/// head, on device 0).
#[must_use]
pub fn device_layers(layers: u32, cfg: &Config, stage: u32) -> u32 {
    if v_shaped(cfg) {
        let chunks = 2 * cfg.pipe;
        // The remainder's extra layers go to the chunks after the first,
        // which sits on device 0 with the head's.
        let order = |j: u32| {
            if j + 1 == chunks || cfg.head_layers == 0 {
                j
            } else {
                (j + chunks - 2) % (chunks - 1)
            }
        };
        let split = Split::new(layers, chunks, cfg.embedding_layers, cfg.head_layers);
        [stage, chunks - 1 - stage]
            .into_iter()
            .map(|j| split.chunk(order(j)))
            .sum()
    } else {
        stage_layers_split(
            layers,
            cfg.pipe,
            cfg.virtual_stages,
            (cfg.embedding_layers, cfg.head_layers),
            stage,
        )
    }
}

/// How many of the first `first` layers of the model (a mixture's dense
/// layers, which Megatron-Core, DeepSeek and torchtitan put first) sit on
/// pipeline device `stage`: the layers go to the chunks in order, and the
/// first p chunks lie on devices 0 to p−1 in the interleaved placement and
/// down the V alike ([`device_layers`]' split; under ZB-V the remainder's
/// extra layers are taken as the interleaved split places them, which
/// moves a layer at most). Layers past the first p chunks (more than a
/// pipeline's worth of leading layers) are not counted.
#[must_use]
pub fn first_layers_on(layers: u32, first: u32, cfg: &Config, stage: u32) -> u32 {
    let chunks = chunks_per_device(cfg) * cfg.pipe;
    let split = Split::new(layers, chunks, cfg.embedding_layers, cfg.head_layers);
    let start: u32 = (0..stage.min(chunks)).map(|j| split.chunk(j)).sum();
    if stage >= chunks || start >= first {
        return 0;
    }
    (start + split.chunk(stage)).min(first) - start
}

/// Micro-batches the first of a device's chunks holds at the peak of
/// Megatron-Core's interleaved schedule, given the device's [`in_flight`]
/// `all`: of the warm-up's forwards and the first steady one (N of them,
/// `all` × v), taken in groups of the schedule's micro-batch group g
/// through the chunks in turn, those of chunk 0: C·g + min(R, g) for
/// N = C·g·v + R. Without virtual stages, `all`.
#[must_use]
pub fn first_chunk_in_flight(cfg: &Config, all: f64) -> f64 {
    if cfg.virtual_stages <= 1
        || v_shaped(cfg)
        || cfg.method.layered()
        || cfg.pipeline_schedule != PipelineSchedule::OneFOneB
    {
        return all;
    }
    let v = f64::from(cfg.virtual_stages);
    let g = f64::from(group_size(
        cfg.microbatch_group,
        cfg.pipe,
        cfg.micro_batches,
    ))
    .max(1.0);
    let n = all * v;
    let cycles = crate::math::floor(n / (g * v));
    cycles * g + (n - cycles * g * v).min(g)
}

/// ZB-V over a pipeline: two chunks per device in a V.
#[must_use]
pub fn v_shaped(cfg: &Config) -> bool {
    cfg.pipeline_schedule == PipelineSchedule::ZbV && cfg.pipe > 1
}

/// Model chunks on each pipeline device: v, or 2 under ZB-V.
#[must_use]
pub fn chunks_per_device(cfg: &Config) -> u32 {
    if v_shaped(cfg) {
        2
    } else {
        cfg.virtual_stages
    }
}

/// Does pipeline device `stage` hold the head (the logit layer)? The last
/// device, or under ZB-V the first (the V ends where it began).
#[must_use]
pub fn holds_head(cfg: &Config, stage: u32) -> bool {
    if v_shaped(cfg) {
        stage == 0
    } else {
        stage + 1 == cfg.pipe
    }
}

/// Does Megatron-Core take `n` micro-batches a group for `m` micro-batches
/// on `p` devices? p ≤ N ≤ m, and the last group empty or at least p long
/// (`forward_backward_pipelining_with_interleaving`: a shorter last group
/// would leave the pipeline waiting on its own dependencies).
#[must_use]
pub fn group_fits(n: u32, p: u32, m: u32) -> bool {
    p <= n && n <= m && (m % n == 0 || m % n >= p)
}

/// The micro-batches a group of the interleaved schedule takes: `group`
/// when set, else the smallest Megatron-Core accepts (p when p divides m:
/// its default, a depth-first order; m at most, one group). p when there
/// are fewer micro-batches than devices (no group fits).
#[must_use]
pub fn group_size(group: u32, p: u32, m: u32) -> u32 {
    if group > 0 {
        return group;
    }
    (p..=m).find(|&n| group_fits(n, p, m)).unwrap_or(p)
}

/// The micro-batches each virtual stage of an interleaved 1F1B schedule
/// takes in a row, N ([`Config::microbatch_group`], or the smallest
/// Megatron-Core takes: [`group_size`]); 0 without
/// interleaving.
#[must_use]
pub fn microbatch_group(cfg: &Config) -> u32 {
    if cfg.virtual_stages > 1 && cfg.pipe > 1 && !cfg.method.layered() {
        group_size(cfg.microbatch_group, cfg.pipe, cfg.micro_batches)
    } else {
        0
    }
}

/// Micro-batches whose activations device `stage` holds at the peak of a
/// 1F1B schedule: p − stage; interleaved with v chunks and groups of N
/// micro-batches, in chunk-micro-batches, 2·(p − stage − 1) + (v − 1)·N + 1
/// (Megatron-Core's warm-up, `get_pp_rank_microbatches`), which with N = p
/// on the first device is p·(1 + (p−1)/(p·v)) stage-sized micro-batches
/// (Korthikanti sec. 4.2.3). Returned in stage-sized micro-batches, at most
/// the batch's m. The modular pipeline and GPipe hold all of their m.
#[must_use]
pub fn in_flight(cfg: &Config, stage: u32) -> f64 {
    let (p, v, m) = (
        f64::from(cfg.pipe),
        f64::from(cfg.virtual_stages),
        f64::from(cfg.micro_batches),
    );
    let i = f64::from(stage);
    if cfg.method.layered() || cfg.pipeline_schedule == PipelineSchedule::GPipe {
        return m;
    }
    if cfg.pipeline_schedule == PipelineSchedule::ZbH1 {
        // Device i: p − i in flight as in 1F1B, plus the i whose weight
        // gradients it defers.
        return p.min(m);
    }
    if cfg.pipeline_schedule == PipelineSchedule::DualPipe && cfg.pipe > 1 {
        return (p + 1.0).min(m);
    }
    if v_shaped(cfg) {
        // Device i holds 2p − i half-stage micro-batches (at most m): p
        // stage-sized on device 0, 1F1B's first device's peak.
        return (2.0 * p - i).min(m) / 2.0;
    }
    let chunk_mbs = if cfg.virtual_stages > 1 {
        let n = group_size(cfg.microbatch_group, cfg.pipe, cfg.micro_batches);
        2.0 * (p - i - 1.0) + (v - 1.0) * f64::from(n) + 1.0
    } else {
        p - i
    };
    (chunk_mbs / v).min(m)
}

/// Pipeline bubble as a fraction of the step's compute: (p−1)/(v·m) for
/// GPipe, 1F1B and interleaved 1F1B (PTD-P secs. 2.2.1–2.2.2), (p−1)·p/(m·d_l) for the
/// modular pipeline (Lamy-Poirier sec. 4), (p−1)/m · (F+B−W)/(F+B+W) for
/// ZB-H1 (Qi et al. 2024), half that for ZB-V (its chunks are half
/// stages), (p/2−1)/m · (F&B+B−3W)/(F+B+W) for DualPipe (DeepSeek-V3
/// Table 2).
#[must_use]
pub fn bubble_fraction(cfg: &Config, layers: u32) -> f64 {
    let (p, v, m) = (
        f64::from(cfg.pipe),
        f64::from(cfg.virtual_stages),
        f64::from(cfg.micro_batches),
    );
    if cfg.pipe <= 1 {
        0.0
    } else if cfg.method.layered() {
        (p - 1.0) * p / (m * f64::from(layers))
    } else if cfg.pipeline_schedule == PipelineSchedule::ZbH1 {
        // (p−1)(F + B − W) over m(F + B + W): W = F, B the rest of the
        // passes (1 forward-equivalent, 2 with full recomputation).
        let passes = passes_of(cfg, layers);
        (p - 1.0) / m * (passes - 2.0) / passes
    } else if cfg.pipeline_schedule == PipelineSchedule::ZbV {
        // ZB-H1's over half-stage chunks; the simulated order gives
        // (p−1)·B_chunk of idle per device with W = F ≤ B.
        let passes = passes_of(cfg, layers);
        (p - 1.0) / m * (passes - 2.0) / (2.0 * passes)
    } else if cfg.pipeline_schedule == PipelineSchedule::DualPipe {
        // (p/2 − 1)(F&B + B − 3W) over m(F + B + W), B the whole backward
        // (passes − 1 forward-equivalents), F&B = F + B, W = F.
        let passes = passes_of(cfg, layers);
        (p / 2.0 - 1.0) / m * (2.0 * passes - 4.0) / passes
    } else {
        (p - 1.0) / (v * m)
    }
}

#[cfg(test)]
mod tests {
    use super::Split;

    /// A device's layers in closed form are the sum of its chunks', for
    /// every split of up to 60 layers over up to 9 × 7 chunks, with and
    /// without the embedding's and the head's layers.
    #[test]
    fn a_device_sums_its_chunks() {
        for layers in 1..=60 {
            for pipe in 1..=9 {
                for v in 1..=7 {
                    for (e, h) in [(0, 0), (0, 1), (1, 0), (1, 1), (0, 3), (2, 2)] {
                        let split = Split::new(layers, pipe * v, e, h);
                        for stage in 0..pipe {
                            let sum: u32 = (0..v).map(|k| split.chunk(stage + k * pipe)).sum();
                            assert_eq!(
                                split.device(stage, pipe, v),
                                sum,
                                "{layers} layers, PP {pipe} × VP {v}, e {e} h {h}, stage {stage}"
                            );
                        }
                    }
                }
            }
        }
    }
}
