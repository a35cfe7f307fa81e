//! `plan3d`: the command-line front end to plan3d-core.
//!
//! Readable tables by default, `--json` for scripts. The subcommands and
//! JSON fields are a stable interface, documented in the README.

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use plan3d_core::{
    estimate, evaluate, hardware, model, schedule,
    search::{self, Constraints, Parallelism},
    zero, ActivationModel, Config, Error, Evaluation, Hardware, Link, Method, ModelShape, Network,
};
use serde_json::{json, Map, Value};

#[derive(Parser)]
#[command(
    name = "plan3d",
    version,
    about = "Plan the distributed training of large transformers"
)]
struct Cli {
    /// Print JSON instead of a table.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Shape, parameter counts and critical batch size of a model.
    Model {
        /// A preset (bert, megatron-8.3b, t-nlg, gpt-3, megatron-1t,
        /// llama-3.1-405b) or x<N> for the X[N] family; omit for a custom shape.
        name: Option<String>,
        #[command(flatten)]
        shape: ShapeArgs,
    },
    /// A GPU's peak, memory and links with their intensity thresholds (Table A.1).
    Hardware {
        #[command(flatten)]
        hw: HardwareArgs,
    },
    /// Memory, overheads, efficiency and training time of one configuration.
    Evaluate(EvaluateArgs),
    /// ZeRO-DP model-state memory per device and communication volume.
    Zero {
        /// Parameter count Ψ.
        #[arg(long)]
        params: f64,
        /// Data-parallel degree N_d.
        #[arg(long)]
        dp: u32,
        /// ZeRO stage: 0 (none), 1 (optimizer), 2 (+ gradients), 3 (+ parameters).
        #[arg(long)]
        stage: u8,
        /// Optimizer memory multiplier K (12 for mixed-precision Adam).
        #[arg(long, default_value_t = 12.0)]
        k: f64,
    },
    /// The fastest plan for a method and parallelism setting, and why.
    Plan(PlanArgs),
    /// The rules' plan over a log-spaced range of X[x] model sizes (sec. 7).
    Sweep(SweepArgs),
    /// A training schedule's timeline: events, bubble, memory over time.
    Schedule(ScheduleArgs),
    /// Training time from tokens and achieved throughput (PTD-P eq. 4).
    Estimate {
        /// Parameter count P.
        #[arg(long)]
        params: f64,
        /// Training tokens T.
        #[arg(long)]
        tokens: f64,
        /// GPU count n.
        #[arg(long)]
        gpus: f64,
        /// Achieved flop/s per GPU X.
        #[arg(long)]
        flops_per_gpu: f64,
        /// Flop per token and parameter: 8 with recomputation, 6 without.
        #[arg(long, default_value_t = estimate::FLOPS_FACTOR_RECOMPUTE)]
        flops_factor: f64,
    },
}

/// Custom shape flags; each overrides the preset's field.
#[derive(Args, Default)]
struct ShapeArgs {
    /// Sequence length d_s.
    #[arg(long)]
    seq_len: Option<u32>,
    /// Attention heads d_a.
    #[arg(long)]
    heads: Option<u32>,
    /// Head size d_h.
    #[arg(long)]
    head_size: Option<u32>,
    /// Layers d_l.
    #[arg(long)]
    layers: Option<u32>,
    /// Feed-forward size d_I (default 4 × width).
    #[arg(long)]
    ffn: Option<u32>,
    /// Key/value heads (grouped-query attention; default: heads).
    #[arg(long)]
    kv_heads: Option<u32>,
    /// Gated (SwiGLU) feed-forward block.
    #[arg(long)]
    gated: bool,
    /// No linear biases, RMSNorm.
    #[arg(long)]
    no_biases: bool,
    /// Vocabulary size (counts the embedding and LM head).
    #[arg(long)]
    vocab: Option<u32>,
    /// Untied input embedding and LM head.
    #[arg(long)]
    untied: bool,
}

impl ShapeArgs {
    fn shape(&self, name: Option<&str>) -> Result<ModelShape, String> {
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
struct HardwareArgs {
    /// GPU: a100-80gb, a100-40gb, h100-sxm, h200, b200.
    #[arg(long, default_value = "a100-80gb")]
    gpu: String,
    /// GPUs per node (NVLink domain); default 16, the paper's HGX A100.
    #[arg(long)]
    node_size: Option<u32>,
    /// No node-size limit on tensor parallelism (sec. 7, fig. 5).
    #[arg(long, conflicts_with = "node_size")]
    no_node_limit: bool,
    /// Network of the data/pipeline dimensions: infiniband (200 Gb/s per
    /// GPU), infiniband-400, ethernet (25 Gb/s per GPU), ethernet-100, ethernet-400.
    #[arg(long, default_value = "infiniband")]
    network: String,
    /// Fraction of peak the kernels reach (the paper assumes 1).
    #[arg(long, default_value_t = 1.0)]
    kernel_efficiency: f64,
    /// Override the GPU's memory, in GiB.
    #[arg(long)]
    gpu_memory: Option<f64>,
}

impl HardwareArgs {
    fn hardware(&self) -> Result<Hardware, Error> {
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
struct EvaluateArgs {
    /// Model preset or x<N>; custom shape flags override its fields.
    #[arg(long)]
    model: Option<String>,
    #[command(flatten)]
    shape: ShapeArgs,
    /// baseline, partitioned, improved or improved-unpartitioned.
    #[arg(long, default_value = "baseline")]
    method: String,
    /// Data-parallel degree n_b.
    #[arg(long, default_value_t = 1)]
    data: u32,
    /// Pipeline-parallel degree n_l.
    #[arg(long, default_value_t = 1)]
    pipe: u32,
    /// Tensor-parallel degree n_a.
    #[arg(long, default_value_t = 1)]
    tensor: u32,
    /// Batch size b in sequences; must equal data × micro-batches × micro-batch.
    #[arg(long)]
    batch: Option<u64>,
    /// Micro-batch size b_µ.
    #[arg(long, default_value_t = 1)]
    micro_batch: u32,
    /// Micro-batch count n_µ.
    #[arg(long, default_value_t = 1)]
    micro_batches: u32,
    /// Offload the training state and checkpoints to CPU memory.
    #[arg(long)]
    offload: bool,
    /// Activation model: paper, full, selective or none.
    #[arg(long, default_value = "paper")]
    activations: String,
    #[command(flatten)]
    hw: HardwareArgs,
}

#[derive(Args)]
struct ConstraintArgs {
    /// Exactly this many GPUs (a cap for the rules).
    #[arg(long)]
    gpus: Option<u64>,
    /// At most this many GPUs.
    #[arg(long)]
    max_gpus: Option<u64>,
    /// A fixed tensor-parallel degree.
    #[arg(long)]
    tensor: Option<u32>,
    /// Train within this many days with as few GPUs as possible.
    #[arg(long)]
    target_days: Option<f64>,
    /// A batch limit other than the critical batch, in sequences.
    #[arg(long)]
    batch: Option<u64>,
    /// Discard configurations below this efficiency (exhaustive search).
    #[arg(long, default_value_t = 0.0)]
    min_efficiency: f64,
    /// Activation model: paper, full, selective or none.
    #[arg(long, default_value = "paper")]
    activations: String,
}

impl ConstraintArgs {
    fn constraints(&self) -> Result<Constraints, String> {
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

#[derive(Args)]
struct PlanArgs {
    /// Model preset or x<N>; custom shape flags override its fields.
    #[arg(long)]
    model: Option<String>,
    #[command(flatten)]
    shape: ShapeArgs,
    /// baseline, partitioned, improved, improved-unpartitioned, or (with
    /// --search exhaustive) any.
    #[arg(long, default_value = "improved")]
    method: String,
    /// none, data, data+pipe, data+tensor, pipe+tensor or 3d.
    #[arg(long, default_value = "3d")]
    parallelism: String,
    /// rules (the paper's section 5) or exhaustive (every configuration).
    #[arg(long, default_value = "rules")]
    search: String,
    #[command(flatten)]
    constraints: ConstraintArgs,
    #[command(flatten)]
    hw: HardwareArgs,
}

#[derive(Args)]
struct SweepArgs {
    /// baseline, partitioned, improved or improved-unpartitioned.
    #[arg(long, default_value = "improved")]
    method: String,
    /// none, data, data+pipe, data+tensor, pipe+tensor or 3d.
    #[arg(long, default_value = "3d")]
    parallelism: String,
    /// Smallest parameter count.
    #[arg(long, default_value_t = 1e9)]
    from: f64,
    /// Largest parameter count.
    #[arg(long, default_value_t = 1e16)]
    to: f64,
    /// Points, log-spaced (sizes that round to the same X[x] appear once).
    #[arg(long, default_value_t = 50)]
    points: u32,
    /// How the shape grows: `x` (the X[x] family), `aspect:R` (width/depth
    /// ratio R, e.g. 128 like GPT-3) or `depth:L` (L layers, wider models).
    #[arg(long, default_value = "x")]
    scaling: String,
    /// Head size for `aspect:` and `depth:` scaling.
    #[arg(long, default_value_t = 128)]
    head_size: u32,
    /// Sequence length for `aspect:` and `depth:` scaling.
    #[arg(long, default_value_t = 2048)]
    seq_len: u32,
    /// Comma-separated values instead of a table.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    #[command(flatten)]
    constraints: ConstraintArgs,
    #[command(flatten)]
    hw: HardwareArgs,
}

#[derive(Args)]
struct ScheduleArgs {
    /// ga, lga, gpipe, 1f1b, interleaved or modular.
    #[arg(long)]
    kind: String,
    /// Pipeline devices n_l (1 for ga and lga).
    #[arg(long)]
    devices: Option<u32>,
    /// Layers d_l (default: the model's, or 16).
    #[arg(long)]
    layers: Option<u32>,
    /// Micro-batches n_µ.
    #[arg(long, default_value_t = 4)]
    micro_batches: u32,
    /// Virtual stages per device (interleaved).
    #[arg(long, default_value_t = 2)]
    chunks: u32,
    /// Data-parallel degree: above 1, gradients are reduced.
    #[arg(long, default_value_t = 1)]
    data: u32,
    /// State partitioned over the data-parallel devices (restores and
    /// per-layer reductions, Table C.1).
    #[arg(long)]
    partition: bool,
    /// State offloaded to CPU memory (reloads and offloads).
    #[arg(long)]
    offload: bool,
    /// Unit durations (forward 1, backward --backward, free transfers); the
    /// default without --model.
    #[arg(long, conflicts_with = "model")]
    unit: bool,
    /// Backward duration in unit mode (2, or 3 with recomputation).
    #[arg(long, default_value_t = 2.0)]
    backward: f64,
    /// Unit mode: duration of one layer's reduction.
    #[arg(long, default_value_t = 0.0)]
    reduce: f64,
    /// Unit mode: duration of one layer's restore.
    #[arg(long, default_value_t = 0.0)]
    restore: f64,
    /// Unit mode: duration of one micro-batch's send between stages.
    #[arg(long, default_value_t = 0.0)]
    send: f64,
    /// Durations and memory from the cost model for this model.
    #[arg(long)]
    model: Option<String>,
    /// Tensor-parallel degree (cost-model mode).
    #[arg(long, default_value_t = 1)]
    tensor: u32,
    /// Micro-batch size (cost-model mode).
    #[arg(long, default_value_t = 1)]
    micro_batch: u32,
    #[command(flatten)]
    hw: HardwareArgs,
    /// An SVG drawing.
    #[arg(long, conflicts_with_all = ["ascii", "json"])]
    svg: bool,
    /// A text Gantt chart.
    #[arg(long, conflicts_with = "json")]
    ascii: bool,
    /// Include every event in the JSON (default with --json).
    #[arg(long, default_value_t = true)]
    events: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> Result<String, String> {
    let value = match &cli.command {
        Command::Model { name, shape } => model_json(&shape.shape(name.as_deref())?),
        Command::Hardware { hw } => hardware_json(&hw.hardware().map_err(|e| e.to_string())?),
        Command::Evaluate(args) => evaluate_cmd(args)?,
        Command::Schedule(args) => {
            let sched = schedule_cmd(args)?;
            if args.svg {
                return Ok(sched.to_svg());
            }
            if args.ascii || !cli.json {
                let step = if sched.spec.durations.unit == "unit" {
                    1.0
                } else {
                    sched.makespan / 160.0
                };
                return Ok(format!(
                    "{}{} schedule: makespan {} {}, bubble {:.4}, exposed communication {} {}",
                    sched.to_ascii(step),
                    sched.spec.kind.name(),
                    num(sched.makespan),
                    sched.spec.durations.unit,
                    sched.bubble_fraction,
                    num(sched.exposed_communication),
                    sched.spec.durations.unit
                ));
            }
            schedule_json(&sched)
        }
        Command::Plan(args) => plan_cmd(args)?,
        Command::Sweep(args) => {
            let rows = sweep_cmd(args)?;
            if args.csv {
                return Ok(csv(&rows));
            }
            if !cli.json {
                return Ok(sweep_table(&rows));
            }
            rows
        }
        Command::Zero {
            params,
            dp,
            stage,
            k,
        } => {
            let z = zero::zero(*params, *dp, *stage, *k).map_err(|e| e.to_string())?;
            json!({
                "params_bytes": z.params.get(),
                "grads_bytes": z.grads.get(),
                "optimizer_bytes": z.optimizer.get(),
                "total_bytes": z.total().get(),
                "comm_volume_elements": z.comm_volume_elements,
            })
        }
        Command::Estimate {
            params,
            tokens,
            gpus,
            flops_per_gpu,
            flops_factor,
        } => {
            let t = estimate::training_time(*params, *tokens, *gpus, *flops_per_gpu, *flops_factor)
                .map_err(|e| e.to_string())?;
            json!({ "seconds": t.get(), "days": t.days() })
        }
    };
    Ok(if cli.json {
        serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
    } else {
        table(&value)
    })
}

fn model_json(m: &ModelShape) -> Value {
    json!({
        "seq_len": m.seq_len,
        "heads": m.heads,
        "head_size": m.head_size,
        "kv_heads": m.kv_heads,
        "d_model": m.width(),
        "ffn": m.ffn,
        "layers": m.layers,
        "params": m.params(),
        "params_exact": m.params_exact(),
        "critical_batch": m.critical_batch(),
    })
}

fn hardware_json(hw: &Hardware) -> Value {
    let mut links = Map::new();
    for link in Link::ALL {
        links.insert(
            link.key().into(),
            json!({
                "bandwidth": hw.bandwidth(link).get(),
                "threshold": hw.threshold(link).get(),
            }),
        );
    }
    json!({
        "gpu": hw.gpu.name,
        "peak_flops": hw.gpu.peak.get(),
        "memory_bytes": hw.gpu.memory.get(),
        "node_size": hw.node_size,
        "network": hw.network.name(),
        "links": links,
    })
}

fn evaluate_cmd(a: &EvaluateArgs) -> Result<Value, String> {
    let m = a.shape.shape(a.model.as_deref())?;
    let hw = a.hw.hardware().map_err(|e| e.to_string())?;
    let cfg = Config {
        method: Method::parse(&a.method).map_err(|e| format!("{e} '{}'", a.method))?,
        data: a.data,
        pipe: a.pipe,
        tensor: a.tensor,
        micro_batch: a.micro_batch,
        micro_batches: a.micro_batches,
        offload: a.offload,
        activation: ActivationModel::parse(&a.activations)
            .map_err(|e| format!("{e} '{}'", a.activations))?,
    };
    if let Some(batch) = a.batch {
        if batch != cfg.batch() {
            return Err(Error::BatchMismatch {
                batch,
                product: cfg.batch(),
            }
            .to_string());
        }
    }
    let e = evaluate(&m, &hw, &cfg).map_err(|e| e.to_string())?;
    Ok(evaluation_json(&e, &hw))
}

fn evaluation_json(e: &Evaluation, hw: &Hardware) -> Value {
    let c = &e.config;
    let overheads: Map<String, Value> = e
        .overheads
        .entries()
        .iter()
        .map(|&(k, v)| (k.to_string(), json!(v)))
        .collect();
    let transfers: Vec<Value> = e
        .transfers
        .iter()
        .map(|t| {
            json!({
                "kind": t.kind.key(),
                "link": t.link.key(),
                "equation": t.equation,
                "intensity": t.intensity.get(),
                "threshold": t.threshold.get(),
                "overlapped": t.overlapped,
                "hidden": t.hidden(),
                "overhead": t.overhead,
            })
        })
        .collect();
    let m = &e.memory;
    json!({
        "method": c.method.name(),
        "batch": e.batch,
        "micro_batch": c.micro_batch,
        "micro_batches": c.micro_batches,
        "data": c.data,
        "pipe": c.pipe,
        "tensor": c.tensor,
        "gpus": e.gpus,
        "offload": c.offload,
        "critical_batch": e.critical_batch,
        "efficiency": e.efficiency,
        "days": e.time.days(),
        "steps": e.steps,
        "total_flops": e.total_flops.get(),
        "fits": e.fits,
        "gpu_memory_bytes": hw.gpu.memory.get(),
        "overheads": overheads,
        "memory": {
            "state": m.state.get(),
            "checkpoints": m.checkpoints.get(),
            "buffers": m.buffers.get(),
            "activations": m.activations.get(),
            "offloadable": m.offloadable().get(),
            "non_offloadable": m.non_offloadable().get(),
            "total": m.total().get(),
            "on_gpu": m.on_gpu(c.offload).get(),
        },
        "transfers": transfers,
    })
}

fn schedule_cmd(a: &ScheduleArgs) -> Result<schedule::Schedule, String> {
    let e = |e: Error| e.to_string();
    let kind =
        schedule::ScheduleKind::parse(&a.kind).map_err(|err| format!("{err} '{}'", a.kind))?;
    let devices = a.devices.unwrap_or(if kind.pipelined() { 4 } else { 1 });
    let (durations, memory_model, layers) = match &a.model {
        Some(name) => {
            let m = model::preset(name).map_err(|err| format!("{err} '{name}'"))?;
            let hw = a.hw.hardware().map_err(e)?;
            let d = schedule::Durations::from_cost_model(
                &m,
                &hw,
                a.tensor,
                a.micro_batch,
                a.data,
                a.partition,
                ActivationModel::Paper,
            )
            .map_err(e)?;
            (d, Some(m), a.layers.unwrap_or(m.layers))
        }
        None => {
            let mut d = schedule::Durations::unit(a.backward);
            d.reduce = a.reduce;
            d.restore = a.restore;
            d.send = a.send;
            (d, None, a.layers.unwrap_or(16))
        }
    };
    let mut spec = schedule::ScheduleSpec {
        kind,
        devices,
        layers,
        micro_batches: a.micro_batches,
        chunks: if kind == schedule::ScheduleKind::Interleaved {
            a.chunks
        } else {
            1
        },
        data: a.data,
        partition: a.partition,
        offload: a.offload,
        durations,
        memory: schedule::MemorySizes::unit(),
    };
    if let Some(m) = memory_model {
        spec.memory = schedule::MemorySizes::from_cost_model(&m, &spec, a.tensor, a.micro_batch);
    }
    schedule::simulate(&spec).map_err(e)
}

fn schedule_json(s: &schedule::Schedule) -> Value {
    let spec = &s.spec;
    json!({
        "kind": spec.kind.name(),
        "devices": spec.devices,
        "layers": spec.layers,
        "micro_batches": spec.micro_batches,
        "chunks": spec.chunks,
        "data": spec.data,
        "partition": spec.partition,
        "offload": spec.offload,
        "unit": spec.durations.unit,
        "makespan": s.makespan,
        "bubble_fraction": s.bubble_fraction,
        "exposed_communication": s.exposed_communication,
        "utilisation": s.utilisation,
        "in_flight": s.in_flight,
        "memory_peak_bytes": s.memory_peak,
        "events": s.events.iter().map(|e| json!({
            "device": e.device,
            "stream": e.stream.name(),
            "kind": e.kind.name(),
            "layer": e.layer,
            "layers": e.layers,
            "micro_batch": e.micro_batch,
            "start": e.start,
            "end": e.end,
        })).collect::<Vec<_>>(),
    })
}

fn plan_cmd(a: &PlanArgs) -> Result<Value, String> {
    let m = a.shape.shape(a.model.as_deref())?;
    let hw = a.hw.hardware().map_err(|e| e.to_string())?;
    let c = a.constraints.constraints()?;
    let par = Parallelism::parse(&a.parallelism).map_err(|e| format!("{e} '{}'", a.parallelism))?;
    let method = if a.method.eq_ignore_ascii_case("any") {
        None
    } else {
        Some(Method::parse(&a.method).map_err(|e| format!("{e} '{}'", a.method))?)
    };
    let s = |e: Error| e.to_string();
    match a.search.to_ascii_lowercase().as_str() {
        "rules" => {
            let method =
                method.ok_or("the rules need a method; use --search exhaustive for any")?;
            let p = search::rules(&m, &hw, method, par, &c).map_err(s)?;
            Ok(plan_json(&p, &hw, "rules"))
        }
        "exhaustive" => {
            let r = search::exhaustive(&m, &hw, method, par, &c).map_err(s)?;
            let mut v = plan_json(&r.best, &hw, "exhaustive");
            v["evaluated"] = json!(r.evaluated);
            let front = search::pareto(&m, &hw, method, par, &c, 8).map_err(s)?;
            v["pareto"] = Value::Array(
                front
                    .iter()
                    .map(|e| {
                        json!({
                            "method": e.config.method.name(),
                            "gpus": e.gpus,
                            "days": e.time.days(),
                            "efficiency": e.efficiency,
                            "memory_bytes": e.memory.on_gpu(e.config.offload).get(),
                            "data": e.config.data,
                            "pipe": e.config.pipe,
                            "tensor": e.config.tensor,
                            "micro_batch": e.config.micro_batch,
                            "micro_batches": e.config.micro_batches,
                            "offload": e.config.offload,
                        })
                    })
                    .collect(),
            );
            // Where the paper's rules sit against the optimum.
            let rule_method = method.unwrap_or(r.best.method);
            if let Ok(p) = search::rules(&m, &hw, rule_method, par, &c) {
                v["rules"] = json!({
                    "method": rule_method.name(),
                    "gpus": p.evaluation.gpus,
                    "days": p.evaluation.time.days(),
                    "efficiency": p.evaluation.efficiency,
                    "slowdown": plan3d_core::planner::slowdown(&p, &r),
                    "gpu_ratio": p.evaluation.gpus as f64 / r.best.evaluation.gpus as f64,
                    "optimal": plan3d_core::planner::standing(&p, &r, &c)
                        == plan3d_core::planner::Standing::Optimal,
                });
            }
            Ok(v)
        }
        other => Err(format!("unknown search '{other}': use rules or exhaustive")),
    }
}

fn plan_json(p: &search::Plan, hw: &Hardware, how: &str) -> Value {
    let mut v = evaluation_json(&p.evaluation, hw);
    v["parallelism"] = json!(p.parallelism.name());
    v["search"] = json!(how);
    v["binding"] = Value::Array(p.binding.iter().map(|b| json!(b.to_string())).collect());
    v
}

fn sweep_cmd(a: &SweepArgs) -> Result<Value, String> {
    let hw = a.hw.hardware().map_err(|e| e.to_string())?;
    let c = a.constraints.constraints()?;
    let par = Parallelism::parse(&a.parallelism).map_err(|e| format!("{e} '{}'", a.parallelism))?;
    let method = Method::parse(&a.method).map_err(|e| format!("{e} '{}'", a.method))?;
    let scaling = match a.scaling.trim().split_once(':') {
        None if a.scaling.trim().eq_ignore_ascii_case("x") => search::Scaling::XFamily,
        Some((kind, v)) if kind.eq_ignore_ascii_case("aspect") => search::Scaling::Aspect {
            ratio: v
                .parse()
                .map_err(|_| format!("bad width/depth ratio '{v}'"))?,
            head_size: a.head_size,
            seq_len: a.seq_len,
        },
        Some((kind, v)) if kind.eq_ignore_ascii_case("depth") => search::Scaling::FixedDepth {
            layers: v.parse().map_err(|_| format!("bad layer count '{v}'"))?,
            head_size: a.head_size,
            seq_len: a.seq_len,
        },
        _ => {
            return Err(format!(
                "unknown scaling '{}': use x, aspect:R or depth:L",
                a.scaling
            ))
        }
    };
    let rows = search::sweep_scaled(&hw, method, par, &c, scaling, a.from, a.to, a.points)
        .map_err(|e| e.to_string())?;
    Ok(Value::Array(
        rows.iter()
            .map(|r| match &r.plan {
                Ok(p) => {
                    let e = &p.evaluation;
                    json!({
                        "x": r.x,
                        "params": r.params,
                        "layers": r.model.layers,
                        "d_model": r.model.width(),
                        "gpus": e.gpus,
                        "days": e.time.days(),
                        "efficiency": e.efficiency,
                        "offload": e.config.offload,
                        "offloadable": e.memory.offloadable().get(),
                        "non_offloadable": e.memory.non_offloadable().get(),
                        "data": e.config.data,
                        "pipe": e.config.pipe,
                        "tensor": e.config.tensor,
                        "batch": e.batch,
                        "micro_batch": e.config.micro_batch,
                        "micro_batches": e.config.micro_batches,
                        "error": null,
                    })
                }
                Err(err) => json!({
                    "x": r.x,
                    "params": r.params,
                    "layers": r.model.layers,
                    "d_model": r.model.width(),
                    "gpus": null,
                    "days": null,
                    "efficiency": null,
                    "offload": null,
                    "offloadable": null,
                    "non_offloadable": null,
                    "data": null,
                    "pipe": null,
                    "tensor": null,
                    "batch": null,
                    "micro_batch": null,
                    "micro_batches": null,
                    "error": err.to_string(),
                }),
            })
            .collect(),
    ))
}

const SWEEP_COLUMNS: [&str; 17] = [
    "x",
    "params",
    "gpus",
    "days",
    "efficiency",
    "offload",
    "offloadable",
    "non_offloadable",
    "data",
    "pipe",
    "tensor",
    "batch",
    "micro_batch",
    "micro_batches",
    "error",
    "layers",
    "d_model",
];

fn csv(rows: &Value) -> String {
    let mut out = SWEEP_COLUMNS.join(",");
    for r in rows.as_array().into_iter().flatten() {
        out.push('\n');
        let cells: Vec<String> = SWEEP_COLUMNS
            .iter()
            .map(|k| match &r[*k] {
                Value::Null => String::new(),
                Value::String(s) => format!("\"{}\"", s.replace('"', "\"\"")),
                v => v.to_string(),
            })
            .collect();
        out.push_str(&cells.join(","));
    }
    out
}

fn sweep_table(rows: &Value) -> String {
    let mut out = format!(
        "{:>13} {:>10} {:>8} {:>10} {:>6} {:>7} {:>12} {:>12}  {}",
        "d_l × d_m",
        "params",
        "gpus",
        "days",
        "eff.",
        "offload",
        "offl. GiB",
        "non-off. GiB",
        "n_b × n_l × n_a"
    );
    for r in rows.as_array().into_iter().flatten() {
        let n = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        out.push('\n');
        if let Some(err) = r["error"].as_str() {
            out.push_str(&format!(
                "{:>13} {:>10.3e}  {err}",
                format!("{} × {}", r["layers"], r["d_model"]),
                n("params")
            ));
            continue;
        }
        out.push_str(&format!(
            "{:>13} {:>10.3e} {:>8} {:>10} {:>6.3} {:>7} {:>12} {:>12}  {} × {} × {}",
            format!("{} × {}", r["layers"], r["d_model"]),
            n("params"),
            r["gpus"],
            num(n("days")),
            n("efficiency"),
            if r["offload"] == true { "yes" } else { "no" },
            num(n("offloadable") / plan3d_core::units::GIB),
            num(n("non_offloadable") / plan3d_core::units::GIB),
            r["data"],
            r["pipe"],
            r["tensor"]
        ));
    }
    out
}

/// A readable two-column table of a JSON object; byte fields also in GiB.
fn table(v: &Value) -> String {
    let mut rows = Vec::new();
    flatten("", v, &mut rows);
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$}  {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn flatten(prefix: &str, v: &Value, rows: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, rows);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), item, rows);
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let shown = if prefix.ends_with(".bandwidth") {
                format!("{} GiB/s", num(x / plan3d_core::units::GIB))
            } else if prefix.starts_with("memory.")
                || prefix.ends_with("_bytes")
                || prefix.ends_with(".memory_bytes")
            {
                format!("{} GiB", num(x / plan3d_core::units::GIB))
            } else if prefix == "days" || prefix.ends_with(".days") {
                format!("{} days", num(x))
            } else if n.is_u64() || n.is_i64() {
                n.to_string()
            } else {
                num(x)
            };
            rows.push((prefix.to_string(), shown));
        }
        Value::Null => rows.push((prefix.to_string(), "none".into())),
        other => rows.push((
            prefix.to_string(),
            other.to_string().trim_matches('"').to_string(),
        )),
    }
}

/// A number at 4 significant figures, in scientific notation when large.
fn num(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        return format!("{x:.3e}");
    }
    let r = plan3d_core::round_sig(x, 4);
    let s = format!("{r:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}
