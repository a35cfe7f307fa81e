//! Flags shared by several subcommands: the model's shape, the hardware,
//! the constraints of a search.

use clap::Args;
use plan3d_core::{
    hardware, model, search::Constraints, ActivationModel, Error, Hardware, ModelShape, Network,
};

/// Custom shape flags; each overrides the preset's field.
#[derive(Args, Default)]
pub(crate) struct ShapeArgs {
    /// Sequence length d_s.
    #[arg(long)]
    pub(crate) seq_len: Option<u32>,
    /// Attention heads d_a.
    #[arg(long)]
    pub(crate) heads: Option<u32>,
    /// Head size d_h.
    #[arg(long)]
    pub(crate) head_size: Option<u32>,
    /// Layers d_l.
    #[arg(long)]
    pub(crate) layers: Option<u32>,
    /// Feed-forward size d_I (default 4 × width).
    #[arg(long)]
    pub(crate) ffn: Option<u32>,
    /// Key/value heads (grouped-query attention; default: heads).
    #[arg(long)]
    pub(crate) kv_heads: Option<u32>,
    /// Gated (SwiGLU) feed-forward block.
    #[arg(long)]
    pub(crate) gated: bool,
    /// No linear biases, RMSNorm.
    #[arg(long)]
    pub(crate) no_biases: bool,
    /// Vocabulary size (counts the embedding and LM head).
    #[arg(long)]
    pub(crate) vocab: Option<u32>,
    /// Untied input embedding and LM head.
    #[arg(long)]
    pub(crate) untied: bool,
}

impl ShapeArgs {
    pub(crate) fn shape(&self, name: Option<&str>) -> Result<ModelShape, String> {
        let mut m = match name {
            Some(n) => model::preset(n).map_err(|e| format!("{e} '{n}'"))?,
            None => {
                let missing: Vec<&str> = [
                    ("--seq-len", self.seq_len.is_none()),
                    ("--heads", self.heads.is_none()),
                    ("--head-size", self.head_size.is_none()),
                    ("--layers", self.layers.is_none()),
                ]
                .into_iter()
                .filter_map(|(f, m)| m.then_some(f))
                .collect();
                if !missing.is_empty() {
                    return Err(format!(
                        "give a model name or a custom shape (missing {})",
                        missing.join(", ")
                    ));
                }
                let heads = self.heads.unwrap_or(1);
                ModelShape {
                    seq_len: 1,
                    heads,
                    head_size: 1,
                    kv_heads: heads,
                    layers: 1,
                    ffn: 1,
                    gated_mlp: false,
                    biases: true,
                    vocab: None,
                    tied_embeddings: true,
                }
            }
        };
        if let Some(v) = self.seq_len {
            m.seq_len = v;
        }
        if let Some(v) = self.heads {
            m.heads = v;
            m.kv_heads = v;
        }
        if let Some(v) = self.head_size {
            m.head_size = v;
        }
        if let Some(v) = self.layers {
            m.layers = v;
        }
        if name.is_none() || self.heads.is_some() || self.head_size.is_some() {
            m.ffn = u32::try_from(4 * m.width()).unwrap_or(u32::MAX);
        }
        if let Some(v) = self.ffn {
            m.ffn = v;
        }
        if let Some(v) = self.kv_heads {
            m.kv_heads = v;
        }
        m.gated_mlp |= self.gated;
        m.biases &= !self.no_biases;
        if self.vocab.is_some() {
            m.vocab = self.vocab;
        }
        m.tied_embeddings &= !self.untied;
        m.validate().map_err(|e| e.to_string())?;
        Ok(m)
    }
}

#[derive(Args)]
pub(crate) struct HardwareArgs {
    /// GPU: a100-80gb, a100-40gb, h100-sxm, h200, b200.
    #[arg(long, default_value = "a100-80gb")]
    pub(crate) gpu: String,
    /// GPUs per node (NVLink domain); default 16, the paper's HGX A100.
    #[arg(long)]
    pub(crate) node_size: Option<u32>,
    /// No node-size limit on tensor parallelism (sec. 7, fig. 5).
    #[arg(long, conflicts_with = "node_size")]
    pub(crate) no_node_limit: bool,
    /// Network of the data/pipeline dimensions: infiniband (200 Gb/s per
    /// GPU), infiniband-400, ethernet (25 Gb/s per GPU), ethernet-100, ethernet-400.
    #[arg(long, default_value = "infiniband")]
    pub(crate) network: String,
    /// Fraction of peak the kernels reach (the paper assumes 1).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) kernel_efficiency: f64,
    /// Override the GPU's memory, in GiB.
    #[arg(long)]
    pub(crate) gpu_memory: Option<f64>,
}

impl HardwareArgs {
    pub(crate) fn hardware(&self) -> Result<Hardware, Error> {
        let mut gpu = hardware::gpu(&self.gpu)?;
        if let Some(gib) = self.gpu_memory {
            let gib = if gib.is_finite() && gib > 0.0 && gib <= 1e6 {
                gib
            } else {
                return Err(Error::OutOfRange {
                    what: "GPU memory (GiB)",
                    value: gib,
                    min: 0.0,
                    max: 1e6,
                });
            };
            gpu.memory = plan3d_core::units::Bytes::from_gib(gib);
        }
        let hw = Hardware {
            gpu,
            node_size: if self.no_node_limit {
                None
            } else {
                Some(self.node_size.unwrap_or(16))
            },
            network: Network::parse(&self.network)?,
            kernel_efficiency: self.kernel_efficiency,
        };
        hw.validate()?;
        Ok(hw)
    }
}

#[derive(Args)]
pub(crate) struct ConstraintArgs {
    /// Exactly this many GPUs (a cap for the rules).
    #[arg(long)]
    pub(crate) gpus: Option<u64>,
    /// At most this many GPUs.
    #[arg(long)]
    pub(crate) max_gpus: Option<u64>,
    /// A fixed tensor-parallel degree.
    #[arg(long)]
    pub(crate) tensor: Option<u32>,
    /// Train within this many days with as few GPUs as possible.
    #[arg(long)]
    pub(crate) target_days: Option<f64>,
    /// A batch limit other than the critical batch, in sequences.
    #[arg(long)]
    pub(crate) batch: Option<u64>,
    /// Discard configurations below this efficiency (exhaustive search).
    #[arg(long, default_value_t = 0.0)]
    pub(crate) min_efficiency: f64,
    /// Activation model: paper, full, selective or none.
    #[arg(long, default_value = "paper")]
    pub(crate) activations: String,
}

impl ConstraintArgs {
    pub(crate) fn constraints(&self) -> Result<Constraints, String> {
        Ok(Constraints {
            max_gpus: self.max_gpus,
            exact_gpus: self.gpus,
            tensor: self.tensor,
            batch: self.batch,
            target_days: self.target_days,
            min_efficiency: self.min_efficiency,
            activation: ActivationModel::parse(&self.activations)
                .map_err(|e| format!("{e} '{}'", self.activations))?,
        })
    }
}
