//! The inputs: model, hardware, training choices. Each writes the URL state
//! through `set`; nothing here computes.

use leptos::prelude::*;
use plan3d_core::{
    cost::{
        assumptions::{Compute, CrossEntropy},
        framework::Framework,
        AssumptionSet,
    },
    hardware, model,
    planner::METHODS,
    search::Parallelism,
    state::{Inputs, ModelChoice, Notice, KEFF_RANGE, NODE_RANGE},
    ActivationModel, Network,
};

use crate::components::notices::{field_notes, Keys};
use crate::fmt;

/// Quiet time after a keystroke before a typed number applies.
const TYPING_PAUSE_MS: u64 = 300;

/// The handlers of typed number fields: `typed` applies once the typing
/// pauses, like a slider; `committed` (leaving the field) at once. A field
/// is parsed as the URL is (`Inputs::set_field`); a value the page cannot
/// use changes nothing and says so, naming what is used.
pub fn field_handlers(
    inputs: RwSignal<Inputs>,
    set: impl Fn(bool, Box<dyn FnOnce(&mut Inputs)>) + Copy + Send + Sync + 'static,
    notices: RwSignal<Vec<Notice>>,
) -> (
    impl Fn(&'static str, String) + Copy + Send + Sync + 'static,
    impl Fn(&'static str, String) + Copy + Send + Sync + 'static,
) {
    // A typed field: parsed as the URL is (`Inputs::set_field`); a value
    // the page cannot use changes nothing and says so, naming what is used.
    let apply = move |key: &'static str, text: String, discrete: bool| {
        let mut next = inputs.get_untracked();
        match next.set_field(key, &text) {
            Ok(()) => {
                notices.update(|n| n.retain(|x| x.key != key));
                if next != inputs.get_untracked() {
                    set(discrete, Box::new(move |i| *i = next));
                }
            }
            Err(notice) => notices.update(|n| {
                n.retain(|x| x.key != key);
                n.push(notice);
            }),
        }
    };
    // Numbers apply as they are typed, once the typing pauses, like a
    // slider; leaving the field (change) applies at once.
    let typing = StoredValue::new(None::<TimeoutHandle>);
    let typed = move |key: &'static str, text: String| {
        if let Some(h) = typing.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(
            move || apply(key, text, false),
            std::time::Duration::from_millis(TYPING_PAUSE_MS),
        )
        .ok();
        typing.set_value(h);
    };
    let committed = move |key: &'static str, text: String| {
        if let Some(h) = typing.get_value() {
            h.clear();
        }
        apply(key, text, true);
    };
    (typed, committed)
}

/// An optional number field: `(key, id, test id, label, title,
/// placeholder)`. One function for all of them, so leptos' generic view
/// code is instantiated once.
pub fn number_field<T, C>(
    inputs: RwSignal<Inputs>,
    typed: T,
    committed: C,
    (key, id, testid, label, title, placeholder): (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ),
) -> impl IntoView
where
    T: Fn(&'static str, String) + Copy + Send + Sync + 'static,
    C: Fn(&'static str, String) + Copy + Send + Sync + 'static,
{
    view! {
        <label for=id title=title>{label}</label>
        <input id=id data-testid=testid type="text" inputmode="decimal" placeholder=placeholder
            prop:value=move || inputs.with(|i| i.field_text(key))
            on:input=move |e| typed(key, event_target_value(&e))
            on:change=move |e| committed(key, event_target_value(&e)) />
        {field_notes(Keys::One(key))}
    }
}

/// The input panel: model, hardware and training choices.
#[component]
pub fn Controls(
    inputs: RwSignal<Inputs>,
    set: impl Fn(bool, Box<dyn FnOnce(&mut Inputs)>) + Copy + Send + Sync + 'static,
    notices: RwSignal<Vec<Notice>>,
) -> impl IntoView {
    let (typed, committed) = field_handlers(inputs, set, notices);
    let held = use_context::<crate::components::profile::Held>();
    let model_value = move || match inputs.with(|i| i.model) {
        ModelChoice::Preset(n) => n.to_string(),
        ModelChoice::X(x) => format!("x{x}"),
        ModelChoice::Custom(_) => "custom".into(),
    };
    let params_log = move || {
        inputs
            .with(|i| i.model.shape().map(|m| libm::log10(m.params())))
            .unwrap_or(12.0)
    };
    let custom = move || matches!(inputs.with(|i| i.model), ModelChoice::Custom(_));
    let shape = move || inputs.with(|i| i.model.shape().ok());
    let x_options = [8u32, 32, 64, 108, 160, 200, 320, 600];

    view! {
        <aside class="p3-controls" aria-label="Inputs">
            <fieldset>
                <legend>"Assumptions"</legend>
                <label for="p3-assume">"Cost model"</label>
                <select id="p3-assume" data-testid="assume" prop:value=move || inputs.with(|i| i.assumptions.name())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(a) = AssumptionSet::parse(&v) { i.assumptions = a }));
                    }>
                    <option value="practice" title="how Megatron-Core, NeMo and torchtitan train today">"practice: as teams train today"</option>
                    <option value="paper">"paper: Lamy-Poirier 2021 exactly"</option>
                </select>
                {field_notes(Keys::One("assume"))}
                <div class:p3-hidden=move || !inputs.with(Inputs::practice)>
                    {number_field(inputs, typed, committed, ("tokens", "p3-tokens", "tokens", "Training tokens", "e.g. 15.6e12", "20 per parameter"))}
                    <label for="p3-prec" title="the linear layers' GEMMs in 8 bits (MXFP8: Blackwell only)">"GEMM precision"</label>
                    <select id="p3-prec" data-testid="prec" prop:value=move || inputs.with(|i| i.compute.name())
                        on:change=move |e| {
                            let v = event_target_value(&e);
                            set(true, Box::new(move |i| if let Ok(c) = Compute::parse(&v) { i.compute = c }));
                        }>
                        <option value="bf16">"BF16"</option>
                        <option value="fp8">"FP8 per-tensor (unvalidated)"</option>
                        <option value="fp8-current">"FP8 current scaling"</option>
                        <option value="fp8-blockwise">"FP8 block-wise (DeepSeek)"</option>
                        <option value="mxfp8">"MXFP8 (Blackwell)"</option>
                    </select>
                {field_notes(Keys::One("prec"))}
                    <label for="p3-ce" title="what the last pipeline stage holds for one micro-batch's logits">"Loss (cross-entropy)"</label>
                    <select id="p3-ce" data-testid="ce" prop:value=move || inputs.with(|i| i.knobs().cross_entropy.name())
                        on:change=move |e| {
                            let v = event_target_value(&e);
                            set(true, Box::new(move |i| if let Ok(c) = CrossEntropy::parse(&v) { i.cross_entropy = Some(c) }));
                        }>
                        <option value="vocab-parallel">"vocab-parallel (Megatron-Core)"</option>
                        <option value="eager">"eager fp32 (torchtitan, Hugging Face)"</option>
                        <option value="compiled">"compiled (torch.compile)"</option>
                        <option value="fused-linear">"fused linear (Liger)"</option>
                        <option value="logits">"fp32 logits only (the paper's count)"</option>
                    </select>
                {field_notes(Keys::One("ce"))}
                    <label for="p3-fw" title="what the framework keeps and runs: state formats, what each layer saves, the loss, the attention kernel, tensor-parallel overlap">"Framework"</label>
                    <select id="p3-fw" data-testid="fw" prop:value=move || inputs.with(|i| i.framework.unwrap_or_default().name())
                        on:change=move |e| {
                            let v = event_target_value(&e);
                            set(true, Box::new(move |i| if let Ok(f) = Framework::parse(&v) { i.framework = Some(f) }));
                        }>
                        <option value="megatron-core">"Megatron-Core (NeMo)"</option>
                        <option value="megatron-2022">"Megatron-LM 2022"</option>
                        <option value="torchtitan">"torchtitan (FSDP2)"</option>
                        <option value="pytorch-fsdp">"PyTorch FSDP (Hugging Face)"</option>
                        <option value="pytorch">"plain PyTorch AMP"</option>
                        <option value="deepspeed">"DeepSpeed ZeRO"</option>
                    </select>
                {field_notes(Keys::One("fw"))}
                    <label class="p3-check" title="ZB-H1 (Qi et al. 2024): weight gradients deferred into the pipeline's cool-down; ZB-V: two half stages per GPU in a V, half ZB-H1's bubble; DualPipe (DeepSeek-V3): micro-batches from both ends, two stages per GPU. Megatron-Core runs none by default">
                        <input type="checkbox" data-testid="zb" prop:checked=move || inputs.with(|i| i.zero_bubble)
                            on:change=move |e| {
                                let on = event_target_checked(&e);
                                set(true, Box::new(move |i| i.zero_bubble = on));
                            } />
                        " also try zero-bubble ZB-H1, ZB-V and DualPipe (not Megatron-Core's default)"
                    </label>
                </div>
            </fieldset>
            <fieldset>
                <legend>"Model"</legend>
                <label for="p3-model">"Preset"</label>
                <select id="p3-model" data-testid="model" prop:value=model_value
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| {
                            i.choose_model(if v == "custom" {
                                ModelChoice::custom_from(&i.model.shape().unwrap_or(model::BERT))
                            } else if let Some(&(n, _)) = model::PRESETS.iter().find(|(n, _)| *n == v) {
                                ModelChoice::Preset(n)
                            } else {
                                ModelChoice::X(v.trim_start_matches('x').parse().unwrap_or(160))
                            });
                        }));
                    }>
                    {model::PRESETS.iter().map(|(n, _)| view! { <option value=*n>{*n}</option> }).collect_view()}
                    {x_options.iter().map(|x| view! { <option value=format!("x{x}")>{format!("X{x}")}</option> }).collect_view()}
                    {move || match inputs.with(|i| i.model) {
                        ModelChoice::X(x) if !x_options.contains(&x) => Some(view! { <option value=format!("x{x}")>{format!("X{x}")}</option> }),
                        _ => None,
                    }}
                    <option value="custom">"custom shape"</option>
                </select>
                {field_notes(Keys::Many(&["model", "seq", "heads", "head", "layers", "ffn", "kv", "vocab", "gated"]))}
                <label for="p3-size">
                    "Size (sliding moves through the paper's X[x] family, eq. 1): "
                    <output data-testid="params">{move || shape().map(|m| fmt::params(m.params_exact())).unwrap_or_default()}" parameters"</output>
                </label>
                <input id="p3-size" data-testid="size" type="range" min="8" max="16" step="0.02"
                    aria-label="Parameter count, log scale"
                    prop:value=move || format!("{:.2}", params_log())
                    on:input=move |e| {
                        let v = plan3d_core::units::decimal(&event_target_value(&e)).unwrap_or(12.0);
                        let mut next = inputs.get_untracked();
                        // Leaving a preset or a custom shape is said in words.
                        if let Some(n) = next.slide_size(libm::pow(10.0, v)) {
                            notices.update(|ns| { ns.retain(|x| x.key != "model"); ns.push(n); });
                        }
                        set(false, Box::new(move |i| *i = next));
                    } />
                // Built once and hidden unless the shape is custom: leptos'
                // <Show> (its children rebuilt as a closure) cost 5.6 KB of
                // gzipped wasm for this one grid.
                <div class="p3-grid2" class:p3-hidden=move || !custom()>
                    {[
                        ("seq", "Sequence"),
                        ("heads", "Heads"),
                        ("head", "Head size"),
                        ("layers", "Layers"),
                        ("ffn", "FFN size"),
                        ("kv", "KV heads"),
                        ("vocab", "Vocabulary"),
                        ("experts", "Experts (MoE)"),
                        ("topk", "Experts per token"),
                        ("effn", "Expert FFN size"),
                        ("shared", "Shared experts"),
                        ("dense", "Dense layers first"),
                    ]
                        .into_iter()
                        .map(|(key, label)| {
                            // The field shows the custom shape's own value; an
                            // optional one is empty when it takes its default.
                            let get = move || {
                                inputs.with(|i| match i.model {
                                    ModelChoice::Custom(c) => c.get(key),
                                    _ => None,
                                })
                            };
                            let placeholder = match key {
                                "ffn" => "4 × width",
                                "kv" => "= heads",
                                "vocab" => "none",
                                "experts" => "dense",
                                "topk" => "1",
                                "effn" => "= FFN size",
                                "shared" | "dense" => "0",
                                _ => "",
                            };
                            view! {
                                <label>{label}
                                    <input type="number" min="1" data-testid=format!("custom-{key}") placeholder=placeholder
                                        prop:value=move || get().unwrap_or_default()
                                        on:input=move |e| typed(key, event_target_value(&e))
                                        on:change=move |e| committed(key, event_target_value(&e)) />
                                </label>
                            }
                        })
                        .collect_view()}
                    <label class="p3-check">
                        <input type="checkbox" data-testid="custom-gated"
                            prop:checked=move || inputs.with(|i| matches!(i.model, ModelChoice::Custom(c) if c.gated))
                            on:change=move |e| committed("gated", if event_target_checked(&e) { "1".into() } else { "0".into() }) />
                        " gated MLP (SwiGLU)"
                    </label>
                </div>
                <p class="p3-hint">{move || shape().map(|m| format!(
                    "{} layers × width {} ({} heads of {}{}{}), FFN {}{}{}, sequence {}{}, critical batch {:.0} (eq. 2)",
                    m.layers, m.width(), m.heads, m.head_size,
                    if m.kv_heads != m.heads { format!(", {} KV heads", m.kv_heads) } else { String::new() },
                    if m.latent.is_some() { ", latent attention" } else { "" },
                    fmt::count(u64::from(m.ffn)),
                    if m.gated_mlp { " gated" } else { "" },
                    m.experts.map(|e| format!(
                        "; {} experts of {}, {} per token{}: {} active parameters",
                        e.routed, fmt::count(u64::from(e.ffn)), e.top_k,
                        if e.shared > 0 { format!(" + {} shared", e.shared) } else { String::new() },
                        fmt::params(m.active_params())
                    )).unwrap_or_default(),
                    m.seq_len,
                    // GPT-3's 175 B counts its embeddings; the preset, as the
                    // paper, counts the layers only (174 B).
                    if m.vocab.is_none() { ", no vocabulary counted" } else { "" },
                    m.critical_batch()
                ))}</p>
            </fieldset>
            <fieldset data-testid="hardware">
                <legend>"Hardware"</legend>
                <label for="p3-gpu">"GPU"</label>
                <select id="p3-gpu" data-testid="gpu" prop:value=move || inputs.with(|i| i.gpu.name)
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(g) = hardware::gpu(&v) { i.choose_gpu(g) }));
                    }>
                    {hardware::GPUS.iter().map(|g| view! { <option value=g.name>{g.name}</option> }).collect_view()}
                </select>
                {field_notes(Keys::One("gpu"))}
                {held.map(|held| view! { <crate::components::profile::ProfileField inputs set held /> })}
                {field_notes(Keys::One("prof"))}
                <label for="p3-node">
                    "GPUs per node (NVLink): "
                    <output data-testid="node-value">{move || inputs.with(|i| i.node.map_or("no limit".to_string(), |n| n.to_string()))}</output>
                </label>
                <input id="p3-node" data-testid="node" type="range" min=NODE_RANGE.0 max=NODE_RANGE.1 step="1"
                    prop:disabled=move || inputs.with(|i| i.node.is_none())
                    prop:value=move || inputs.with(|i| i.node.unwrap_or(16)).to_string()
                    on:input=move |e| {
                        let v: u32 = event_target_value(&e).parse().unwrap_or(16);
                        set(false, Box::new(move |i| i.node = Some(v.clamp(NODE_RANGE.0, NODE_RANGE.1))));
                    } />
                {field_notes(Keys::One("node"))}
                <label class="p3-check">
                    <input type="checkbox" data-testid="no-node-limit" prop:checked=move || inputs.with(|i| i.node.is_none())
                        on:change=move |e| {
                            let on = event_target_checked(&e);
                            set(true, Box::new(move |i| i.node = if on { None } else { Some(16) }));
                        } />
                    " no node-size limit (fig. 5)"
                </label>
                <label for="p3-net">"Network (data and pipeline)"</label>
                <select id="p3-net" data-testid="net" prop:value=move || inputs.with(|i| i.network.name())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(n) = Network::parse(&v) { i.network = n }));
                    }>
                    {Network::ALL.iter().map(|n| {
                        view! { <option value=n.name()>{n.label()}</option> }
                    }).collect_view()}
                </select>
                {field_notes(Keys::One("net"))}
            </fieldset>
            <fieldset>
                <legend>"Training"</legend>
                <label for="p3-par">"Parallelism"</label>
                <select id="p3-par" data-testid="par" prop:value=move || inputs.with(|i| i.parallelism.name())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(p) = Parallelism::parse(&v) { i.parallelism = p }));
                    }>
                    {Parallelism::ALL.iter().map(|p| view! { <option value=p.name()>{p.name()}</option> }).collect_view()}
                </select>
                {field_notes(Keys::One("par"))}
                <span class="p3-label" id="p3-method-label">"Method shown in detail"</span>
                <div class="p3-radios" role="radiogroup" aria-labelledby="p3-method-label">
                    {std::iter::once(None).chain(METHODS.iter().map(|&m| Some(m))).map(|m| {
                        let name = m.map_or(plan3d_core::state::FASTEST, |m| m.name());
                        let label = move || match m {
                            None => "the fastest plan found",
                            Some(m) => plan3d_core::planner::method_label_for(m, inputs.with(Inputs::practice), false, inputs.with(Inputs::framework_used)),
                        };
                        view! {
                            <label class="p3-radio">
                                <input type="radio" name="p3-method" value=name data-testid=format!("method-{name}")
                                    prop:checked=move || inputs.with(|i| i.method == m)
                                    on:change=move |_| set(true, Box::new(move |i| i.method = m)) />
                                {label}
                            </label>
                        }
                    }).collect_view()}
                </div>
                {field_notes(Keys::One("method"))}
                // The optional numbers: one loop, one kind of field.
                {[
                    ("gpus", "p3-gpus", "budget", "GPU budget (optional)", "", "no limit"),
                    ("cluster", "p3-cluster", "cluster", "Cluster size (exact, optional)",
                        "every plan uses exactly this many GPUs (the exhaustive search); the paper's rules take it as a cap", "any"),
                    ("days", "p3-days", "days", "Target time in days (fewest GPUs)", "", "fastest"),
                    ("batch", "p3-batch", "batch", "Batch limit in sequences",
                        "practice: the largest global batch up to this (default: DeepSeek LLM's batch law, 0.292·C^0.3271 tokens); paper: at most the critical batch (eq. 2)", "by the run's size"),
                ]
                    .into_iter()
                    .map(|f| number_field(inputs, typed, committed, f))
                    .collect_view()}
                <div class:p3-hidden=move || inputs.with(Inputs::practice)>
                <label for="p3-keff">
                    "Kernel efficiency: "
                    <output>{move || fmt::pct(inputs.with(|i| i.kernel_efficiency))}</output>
                </label>
                <input id="p3-keff" data-testid="keff" type="range" min=KEFF_RANGE.0 max=KEFF_RANGE.1 step="0.01"
                    prop:value=move || inputs.with(|i| i.kernel_efficiency).to_string()
                    on:input=move |e| {
                        let v = plan3d_core::units::decimal(&event_target_value(&e)).unwrap_or(1.0);
                        set(false, Box::new(move |i| i.kernel_efficiency = v.clamp(KEFF_RANGE.0, KEFF_RANGE.1)));
                    } />
                {field_notes(Keys::One("keff"))}
                </div>
                <label for="p3-act">"Activation memory (recomputation)"</label>
                <select id="p3-act" data-testid="act" prop:value=move || inputs.with(|i| i.activation.name())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(a) = ActivationModel::parse(&v) { i.activation = a }));
                    }>
                    <option value="paper">"searched (paper: every layer)"</option>
                    <option value="full">"full recomputation (Korthikanti)"</option>
                    <option value="selective">"selective recomputation"</option>
                    <option value="none">"no recomputation"</option>
                </select>
                {field_notes(Keys::One("act"))}
                // A layout to check: each field fixed when given (the search
                // honours it or says why it cannot), searched when empty.
                <details class="p3-layoutbox" data-testid="layout"
                    open=inputs.with_untracked(|i| i.layout.any())>
                    <summary>"Check a layout (optional)"</summary>
                    {[
                        ("dp", "p3-dp", "dp", "Data-parallel degree (DP)", "fixed when given, searched when empty", "searched"),
                        ("pp", "p3-pp", "pp", "Pipeline degree (PP)", "fixed when given, searched when empty", "searched"),
                        ("tp", "p3-tp", "tp", "Tensor-parallel degree (TP)", "fixed when given; the paper's rules take it too", "searched"),
                        ("vp", "p3-vp", "vp", "Virtual stages per GPU (practice)", "interleaved 1F1B: layers per GPU in this many chunks", "searched"),
                        ("mb", "p3-mb", "mb", "Micro-batch, sequences (practice)", "fixed when given, 1–8 searched when empty", "searched"),
                        ("zero", "p3-zero", "zero", "ZeRO stage (practice)", "0, 1, 2, 3 or 3-step; a method that implies another is refused in words", "searched"),
                        ("sched", "p3-sched", "sched", "Pipeline schedule (practice)", "1f1b, gpipe, zb-h1, zb-v or dualpipe", "searched"),
                        ("lmhead", "p3-lmhead", "lmhead", "Head in layers, pipeline split (practice)", "the last stage holds this many layers fewer for the logits (Megatron-Core's --decoder-last-pipeline-num-layers); 0 splits the layers evenly", "the head's flops"),
                        ("lmembed", "p3-lmembed", "lmembed", "Embedding in layers, pipeline split (practice)", "the first stage holds this many layers fewer (Megatron-Core's --account-for-embedding-in-pipeline-split is 1)", "0"),
                    ]
                        .into_iter()
                        .map(|f| number_field(inputs, typed, committed, f))
                        .collect_view()}
                </details>
            </fieldset>
        </aside>
    }
}
