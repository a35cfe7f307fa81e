//! The batches published runs trained at, for the presets that name such
//! a run: what a plan at today's batch law is compared with ("Meta trained
//! at 16 M tokens"). Each figure cites its source; none is fitted.

/// A preset's published final global batch: sequences, whose run, source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PublishedBatch {
    /// The preset's name.
    pub model: &'static str,
    /// Sequences per step at the end of the published run's batch ramp.
    pub sequences: u64,
    /// Who trained it, for a sentence ("Meta").
    pub who: &'static str,
    /// Where it is published.
    pub source: &'static str,
}

/// The presets with a published run's batch.
pub const PUBLISHED_BATCHES: [PublishedBatch; 4] = [
    // 4 M tokens of 4 096, then 8 M of 8 192 after 252 M tokens, then
    // 16 M (2 048 sequences of 8 192) after 2.87 T tokens.
    PublishedBatch {
        model: "llama-3.1-405b",
        sequences: 2048,
        who: "Meta",
        source: "Llama 3, arXiv 2407.21783 sec. 3.4.1",
    },
    // Raised from 3 072 to 15 360 sequences of 4 096 over the first 469 B
    // tokens, then kept.
    PublishedBatch {
        model: "deepseek-v3",
        sequences: 15_360,
        who: "DeepSeek",
        source: "DeepSeek-V3, arXiv 2412.19437 sec. 4.2",
    },
    // "3.2M" tokens of 2 048 (Table 2.1; ramped up from 32 K tokens over
    // the first 4–12 B tokens): 1 536 sequences, as Megatron-LM's and
    // MLPerf's GPT-3 175B reproductions run it (3.1 M tokens).
    PublishedBatch {
        model: "gpt-3",
        sequences: 1536,
        who: "OpenAI",
        source: "GPT-3, arXiv 2005.14165 Table 2.1",
    },
    // Ramped 768 → 1 536 → 2 304 sequences of 4 096.
    PublishedBatch {
        model: "nemotron-4-340b",
        sequences: 2304,
        who: "NVIDIA",
        source: "Nemotron-4 340B, arXiv 2406.11704 Table 2",
    },
];

/// The published batch of the preset named `model`, if its run published
/// one.
#[must_use]
pub fn published_batch(model: &str) -> Option<PublishedBatch> {
    PUBLISHED_BATCHES.into_iter().find(|p| p.model == model)
}

/// The published batch of `model` when a plan training `trained` sequences
/// per step is more than 10 % away from it: the one rule by which the page
/// and the CLI say "… trained at that batch" beside a plan.
#[must_use]
pub fn published_batch_apart(model: &str, trained: u64) -> Option<PublishedBatch> {
    let p = published_batch(model)?;
    ((trained as f64 / p.sequences as f64 - 1.0).abs() > 0.1).then_some(p)
}
