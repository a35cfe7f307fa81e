//! `plan3d`: the command-line front end to plan3d-core.
//!
//! Readable tables by default, `--json` for scripts. The subcommands and
//! JSON fields are a stable interface, documented in `docs/cli.md`.

mod args;
mod calibrate;
mod estimate;
mod evaluate;
mod hardware;
mod model;
mod output;
mod plan;
mod run;
mod schedule;
mod sweep;
mod zero;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::args::{HardwareArgs, ShapeArgs};
use crate::calibrate::{calibrate_cmd, CalibrateArgs, Calibrated};
use crate::estimate::estimate_cmd;
use crate::evaluate::{evaluate_cmd, evaluate_text, timeline_cmd, EvaluateArgs};
use crate::hardware::hardware_cmd;
use crate::model::model_cmd;
use crate::output::table;
use crate::plan::{plan_cmd, plan_text, plan_timeline_cmd, PlanCmdArgs};
use crate::run::{run_cmd, run_text, RunArgs};
use crate::schedule::{schedule_cmd, schedule_json, schedule_text, ScheduleArgs};
use crate::sweep::{csv, sweep_cmd, sweep_table, SweepArgs};
use crate::zero::zero_cmd;

#[derive(Parser)]
#[command(
    name = "plan3d",
    version,
    about = "Plan the distributed training of large transformers",
    after_help = "Practice (today's Megatron-Core, NeMo, torchtitan) is the default model; \
                  --assumptions paper gives Lamy-Poirier 2021's exactly (the default until \
                  November 2026). plan, evaluate and run say the answer first: --details \
                  prints every figure, --json the report."
)]
struct Cli {
    /// Print JSON instead of words.
    #[arg(long, global = true)]
    json: bool,
    /// (plan, evaluate, run) Print every figure as a table instead of the
    /// answer first.
    #[arg(long, global = true, conflicts_with = "json")]
    details: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Shape, parameter counts and critical batch size of a model.
    Model {
        /// A preset (bert, megatron-8.3b, t-nlg, gpt-3, megatron-1t, mistral-7b,
        /// llama-3.1-8b, llama-3.1-70b, nemotron-4-340b, llama-3.1-405b,
        /// mixtral-8x22b, qwen3-235b-a22b, deepseek-v3) or x<N> for the X[N]
        /// family; omit for a custom shape.
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
        /// Parameter count Ψ (175e9, 175B).
        #[arg(long, value_parser = args::count)]
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
    Plan(PlanCmdArgs),
    /// A plan's whole run: wall-clock days (batch ramp, checkpoints,
    /// interruptions), goodput, GPU-hours, cost, energy.
    Run(Box<RunArgs>),
    /// The rules' plan over a log-spaced range of X[x] model sizes (sec. 7).
    Sweep(SweepArgs),
    /// A training schedule's timeline: events, bubble, memory over time.
    Schedule(ScheduleArgs),
    /// The JSON schema of every report and request (and the page's exports).
    Schema,
    /// Measure your own GPU (a calibration profile for --profile), or check
    /// a profile and say what it sets against the GPU preset's curves.
    Calibrate(CalibrateArgs),
    /// The practice model against published runs (the calibration set):
    /// measured vs predicted step time, as a Markdown table.
    Validate {
        /// HTML for the page (`index.html`'s validation template).
        #[arg(long)]
        html: bool,
    },
    /// Training time from tokens and achieved throughput (PTD-P eq. 4).
    Estimate {
        /// Parameter count P (175e9, 175B).
        #[arg(long, value_parser = args::count)]
        params: f64,
        /// Training tokens T (300e9, 300B).
        #[arg(long, value_parser = args::count)]
        tokens: f64,
        /// GPU count n (1024, 1Ki).
        #[arg(long, value_parser = args::count)]
        gpus: f64,
        /// Achieved flop/s per GPU X (140e12, 140T).
        #[arg(long, value_parser = args::count)]
        flops_per_gpu: f64,
        /// Flop per token and parameter: 8 with recomputation, 6 without.
        #[arg(long, default_value_t = plan3d_core::estimate::FLOPS_FACTOR_RECOMPUTE)]
        flops_factor: f64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(out) => {
            // A reader that stops early (`plan3d … | head`) closes the pipe:
            // that ends the output, it is not an error.
            use std::io::Write as _;
            match writeln!(std::io::stdout().lock(), "{out}") {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("error: cannot write the output: {e}");
                    ExitCode::from(2)
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> Result<String, String> {
    // plan, evaluate and run say the answer first unless asked for every
    // figure (--details) or JSON.
    let answer = !cli.json && !cli.details;
    let value = match &cli.command {
        Command::Model { name, shape } => model_cmd(name.as_deref(), shape)?,
        Command::Hardware { hw } => hardware_cmd(hw)?,
        Command::Evaluate(args) => match &args.timeline {
            Some(format) => return timeline_cmd(args, format),
            None if answer => return evaluate_text(args),
            None => evaluate_cmd(args)?,
        },
        Command::Schedule(args) => {
            let sched = schedule_cmd(args)?;
            if args.svg {
                return Ok(sched.to_svg());
            }
            if args.ascii || !cli.json {
                return Ok(schedule_text(&sched));
            }
            schedule_json(&sched)?
        }
        // Always JSON: it is a schema.
        Command::Schema => {
            return serde_json::to_string_pretty(&plan3d_core::api::schema::json_schema())
                .map_err(|e| e.to_string())
        }
        Command::Validate { html } => {
            let rows = plan3d_core::calibration::validate()?;
            if *html {
                return Ok(plan3d_core::calibration::html(&rows)
                    + &plan3d_core::calibration::html_out_of_sample());
            }
            if !cli.json {
                return Ok(plan3d_core::calibration::markdown(&rows));
            }
            serde_json::to_value(rows).map_err(|e| e.to_string())?
        }
        Command::Plan(args) => match &args.timeline {
            Some(format) => return plan_timeline_cmd(&args.plan, format),
            None if answer => return plan_text(&args.plan),
            None => plan_cmd(&args.plan)?,
        },
        Command::Calibrate(args) => match calibrate_cmd(args)? {
            Calibrated::Script => return Ok(calibrate::SCRIPT.trim_end().to_string()),
            Calibrated::Report(v, gpu, coll) if !cli.json => {
                return Ok(calibrate::report_text(&v, &gpu, coll))
            }
            Calibrated::Report(v, ..) => v,
        },
        Command::Run(args) if answer => return run_text(args),
        Command::Run(args) => run_cmd(args)?,
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
        } => zero_cmd(*params, *dp, *stage, *k)?,
        Command::Estimate {
            params,
            tokens,
            gpus,
            flops_per_gpu,
            flops_factor,
        } => estimate_cmd(*params, *tokens, *gpus, *flops_per_gpu, *flops_factor)?,
    };
    Ok(if cli.json {
        serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
    } else {
        table(&value)
    })
}
